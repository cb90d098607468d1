package io.github.redissonratelimit.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.autoconfigure.HeadersProperties;
import io.github.redissonratelimit.autoconfigure.RateLimitHeaderStyle;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.outcome.RateLimitOutcome;

/**
 * Pure logic: the gateway header style renders the IETF fields and, beside them, Spring Cloud Gateway's
 * {@code RedisRateLimiter} headers for the tightest limit.
 */
class GatewayHeaderStyleTest {

    private static final LimitSpec BUCKET = new LimitSpec(10, Duration.ofSeconds(1), RateLimitMode.OVERALL,
            LimitAlgorithm.tokenBucket(20));
    private static final LimitSpec SLIDING = new LimitSpec(100, Duration.ofMinutes(1), RateLimitMode.OVERALL);

    private static RateLimitHeaders gateway() {
        HeadersProperties properties = new HeadersProperties();
        properties.setStyle(RateLimitHeaderStyle.GATEWAY);
        return new RateLimitHeaders(properties);
    }

    private static ResponseLimits.Entry entry(String name, LimitSpec limit, long permits, RateLimitOutcome.Result result,
            LimitState state) {
        return new ResponseLimits.Entry(new RateLimitOutcome(name, name, "k", "rate_limit:{k}", limit, permits, result,
                result == RateLimitOutcome.Result.REJECTED ? Duration.ofMillis(300) : Duration.ZERO, Duration.ZERO,
                null, state), null);
    }

    @Test
    void anAllowedCallCarriesTheIetfFieldsAndTheGatewaysHeaders() {
        Map<String, String> headers = gateway().render(List.of(entry("search", BUCKET, 3,
                RateLimitOutcome.Result.ALLOWED, new LimitState(17, Duration.ofMillis(100)))));
        assertThat(headers).containsEntry("RateLimit-Policy", "\"search\";q=20;w=2")
                .containsEntry("RateLimit", "\"search\";r=17;t=1")
                .containsEntry("X-RateLimit-Remaining", "17").containsEntry("X-RateLimit-Replenish-Rate", "10")
                .containsEntry("X-RateLimit-Burst-Capacity", "20").containsEntry("X-RateLimit-Requested-Tokens", "3");
    }

    @Test
    void aRejectionReportsTheLimitThatRejectedIt() {
        Map<String, String> headers = gateway().render(List.of(
                entry("wide", SLIDING, 1, RateLimitOutcome.Result.ALLOWED, new LimitState(90, Duration.ofSeconds(5))),
                entry("search", BUCKET, 1, RateLimitOutcome.Result.REJECTED, new LimitState(0, Duration.ofMillis(300)))));
        assertThat(headers).containsEntry("X-RateLimit-Remaining", "0").containsEntry("X-RateLimit-Replenish-Rate", "10")
                .containsEntry("X-RateLimit-Burst-Capacity", "20").containsEntry("X-RateLimit-Requested-Tokens", "1")
                .containsKeys("RateLimit-Policy", "RateLimit");
    }

    @Test
    void withoutRemainingPermitsAnAllowedCallCarriesTheConfigurationOnly() {
        HeadersProperties properties = new HeadersProperties();
        properties.setStyle(RateLimitHeaderStyle.GATEWAY);
        properties.setRemaining(false);
        Map<String, String> headers = new RateLimitHeaders(properties).render(List.of(entry("search", SLIDING, 1,
                RateLimitOutcome.Result.ALLOWED, new LimitState(99, Duration.ofSeconds(1)))));
        assertThat(headers).doesNotContainKey("X-RateLimit-Remaining").containsEntry("X-RateLimit-Replenish-Rate", "100")
                .containsEntry("X-RateLimit-Burst-Capacity", "100");
    }
}
