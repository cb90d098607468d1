package io.github.redissonratelimit.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.autoconfigure.HeadersProperties;
import io.github.redissonratelimit.autoconfigure.RateLimitHeaderStyle;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.outcome.RateLimitOutcome;

/**
 * The rate limit headers of each algorithm, from the {@link LimitState} a backend reports with its decision: what
 * {@code q}, {@code w}, {@code r} and {@code t} mean for a sliding window, a token bucket, a fixed window and a
 * calendar quota.
 */
class AlgorithmHeadersTest {

    private static final LimitSpec SLIDING = new LimitSpec(100, Duration.ofMinutes(1), RateLimitMode.OVERALL);
    private static final LimitSpec BUCKET = new LimitSpec(10, Duration.ofSeconds(1), RateLimitMode.OVERALL,
            LimitAlgorithm.tokenBucket(50));
    private static final LimitSpec FIXED = new LimitSpec(100, Duration.ofHours(1), RateLimitMode.OVERALL,
            LimitAlgorithm.fixedWindow());
    private static final LimitSpec MONTHLY = new LimitSpec(10_000, Duration.ofDays(31), RateLimitMode.OVERALL,
            LimitAlgorithm.fixedWindow(CalendarPeriod.MONTH, ZoneId.of("Europe/Berlin")));

    private static Map<String, String> render(String style, LimitSpec limit, LimitState state) {
        HeadersProperties properties = new HeadersProperties();
        properties.setStyle(RateLimitHeaderStyle.valueOf(style.toUpperCase()));
        RateLimitOutcome allowed = new RateLimitOutcome("api", "api", "k", "rate_limit:{k}", limit, 1,
                RateLimitOutcome.Result.ALLOWED, Duration.ZERO, Duration.ZERO, null, state);
        return new RateLimitHeaders(properties).render(List.of(new ResponseLimits.Entry(allowed, null)));
    }

    @Test
    void aSlidingWindowReportsItsRateAndIntervalAndWhenTheNextGrantLeavesTheWindow() {
        Map<String, String> headers = render("ietf", SLIDING, new LimitState(42, Duration.ofMillis(1500)));
        assertThat(headers).containsEntry("RateLimit-Policy", "\"api\";q=100;w=60")
                .containsEntry("RateLimit", "\"api\";r=42;t=2");
    }

    @Test
    void aTokenBucketReportsItsBurstAndTheTimeToRefillItAndItsWholeTokens() {
        Map<String, String> draining = render("ietf", BUCKET, new LimitState(7, Duration.ofMillis(100)));
        assertThat(draining).containsEntry("RateLimit-Policy", "\"api\";q=50;w=5")
                .containsEntry("RateLimit", "\"api\";r=7;t=1");
        assertThat(render("ietf", BUCKET, new LimitState(50, Duration.ZERO)))
                .as("a full bucket: no next token to wait for").containsEntry("RateLimit", "\"api\";r=50");
        assertThat(render("legacy", BUCKET, new LimitState(7, Duration.ofMillis(100))))
                .containsEntry("X-RateLimit-Limit", "50").containsEntry("X-RateLimit-Remaining", "7")
                .containsEntry("X-RateLimit-Reset", "1");
    }

    @Test
    void aTokenBucketWhoseRefillIsNoWholeNumberOfSecondsLeavesWOut() {
        LimitSpec thirds = new LimitSpec(3, Duration.ofSeconds(1), RateLimitMode.OVERALL,
                LimitAlgorithm.tokenBucket(10));
        assertThat(render("ietf", thirds, null)).containsEntry("RateLimit-Policy", "\"api\";q=10");
        LimitSpec perMinute = new LimitSpec(100, Duration.ofMinutes(1), RateLimitMode.OVERALL,
                LimitAlgorithm.tokenBucket(10));
        assertThat(QuotaPolicy.parameters(perMinute)).isEqualTo(";q=10;w=6");
        LimitSpec huge = new LimitSpec(1, Duration.ofDays(365), RateLimitMode.OVERALL,
                LimitAlgorithm.tokenBucket(Long.MAX_VALUE / 1000));
        assertThat(QuotaPolicy.windowSeconds(huge)).as("an overflowing refill time is left out").isEqualTo(-1);
    }

    @Test
    void aFixedWindowReportsItsRateAndIntervalAndWhenTheWindowEnds() {
        assertThat(render("ietf", FIXED, new LimitState(60, Duration.ofMinutes(20))))
                .containsEntry("RateLimit-Policy", "\"api\";q=100;w=3600")
                .containsEntry("RateLimit", "\"api\";r=60;t=1200");
    }

    @Test
    void aCalendarQuotaReportsItsRateWithoutAWindowAndWhenThePeriodEnds() {
        Map<String, String> headers = render("ietf", MONTHLY, new LimitState(9_000, Duration.ofDays(3)));
        assertThat(headers).containsEntry("RateLimit-Policy", "\"api\";q=10000")
                .containsEntry("RateLimit", "\"api\";r=9000;t=259200");
        assertThat(render("legacy", MONTHLY, new LimitState(9_000, Duration.ofDays(3))))
                .containsEntry("X-RateLimit-Limit", "10000").containsEntry("X-RateLimit-Reset", "259200");
    }
}
