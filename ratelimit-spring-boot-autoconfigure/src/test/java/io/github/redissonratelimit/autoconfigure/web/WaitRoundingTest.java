package io.github.redissonratelimit.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.autoconfigure.HeadersProperties;
import io.github.redissonratelimit.autoconfigure.RateLimitHeaderStyle;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.outcome.RateLimitOutcome;

/**
 * A wait becomes whole seconds in one place, {@link RateLimitExceededException#toSecondsRoundedUp(Duration)}:
 * {@code Retry-After} of both exceptions and the seconds of the rate limit headers are that rounding, up, the
 * first two at least 1.
 */
class WaitRoundingTest {

    private static final LimitSpec LIMIT = new LimitSpec(5, Duration.ofMinutes(1), RateLimitMode.OVERALL);

    @ParameterizedTest
    @CsvSource({ "0, 0, 1", "1, 1, 1", "999, 1, 1", "1000, 1, 1", "1001, 2, 2", "59001, 60, 60", "60000, 60, 60" })
    void everyWaitInSecondsIsTheOneRoundingUp(long millis, long seconds, long retryAfter) {
        Duration wait = Duration.ofMillis(millis);
        assertThat(RateLimitExceededException.toSecondsRoundedUp(wait)).isEqualTo(seconds);
        assertThat(RateLimitExceededException.retryAfterSeconds(wait)).isEqualTo(retryAfter);

        RateLimitExceededException rejection = new RateLimitExceededException("slow down", "orders", "order:1",
                "rate_limit:{order:1}", LIMIT, 1, wait);
        assertThat(rejection.getRetryAfterSeconds()).isEqualTo(retryAfter);
        RateLimitBackendUnavailableException unavailable = new RateLimitBackendUnavailableException(
                "rate_limit:{order:1}", RateLimitBackendUnavailableException.Reason.CIRCUIT_OPEN, wait, "skipped", null);
        assertThat(unavailable.getRetryAfterSeconds()).isEqualTo(retryAfter);

        RateLimitHeaders legacy = headers("legacy");
        assertThat(legacy.render(List.of(new ResponseLimits.Entry(RateLimitOutcome.of(rejection), null))))
                .containsEntry("X-RateLimit-Reset", Long.toString(retryAfter));
        assertThat(legacy.render(List.of(new ResponseLimits.Entry(allowed(), new LimitState(3, wait)))))
                .containsEntry("X-RateLimit-Reset", Long.toString(seconds));
        Map<String, String> ietf = headers("ietf").render(
                List.of(new ResponseLimits.Entry(RateLimitOutcome.of(rejection), null)));
        assertThat(ietf).containsEntry("RateLimit", "\"orders\";r=0;t=" + retryAfter);
    }

    private static RateLimitOutcome allowed() {
        return new RateLimitOutcome("orders", "orders", "order:1", "rate_limit:{order:1}", LIMIT, 1,
                RateLimitOutcome.Result.ALLOWED, Duration.ZERO, Duration.ZERO, null, null);
    }

    private static RateLimitHeaders headers(String style) {
        HeadersProperties properties = new HeadersProperties();
        properties.setStyle(RateLimitHeaderStyle.valueOf(style.toUpperCase()));
        return new RateLimitHeaders(properties);
    }
}
