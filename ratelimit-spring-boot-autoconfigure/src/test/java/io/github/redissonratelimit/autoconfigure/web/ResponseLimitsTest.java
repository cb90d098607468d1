package io.github.redissonratelimit.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.autoconfigure.HeadersProperties;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.outcome.RateLimitOutcome;
import io.github.redissonratelimit.outcome.RateLimitOutcome.Result;

/**
 * Pure logic: the limits a response reports, one entry per display name in the order first met, and their IETF
 * headers when there are several.
 */
class ResponseLimitsTest {

    private static final LimitSpec SPEC = new LimitSpec(10, Duration.ofSeconds(1), RateLimitMode.OVERALL);

    private static RateLimitOutcome outcome(String name, Result result, LimitState state) {
        return new RateLimitOutcome(name, name, "k", "rate_limit:{" + name + "}", SPEC, 1, result,
                result == Result.REJECTED ? Duration.ofMillis(300) : Duration.ZERO, Duration.ZERO, null, state);
    }

    private static List<String> names(ResponseLimits limits) {
        return limits.entries().stream().map(entry -> entry.outcome().displayName()).toList();
    }

    @Test
    void aLimitDecidedAgainKeepsItsPlaceWithItsLatestDecision() {
        ResponseLimits limits = new ResponseLimits();
        assertThat(limits.isEmpty()).isTrue();
        limits.add(outcome("a", Result.ALLOWED, new LimitState(9, Duration.ZERO)), null);
        limits.add(outcome("a", Result.ALLOWED, new LimitState(8, Duration.ZERO)), null);
        assertThat(names(limits)).containsExactly("a");
        assertThat(limits.entries().get(0).outcome().state().available()).isEqualTo(8);

        limits.add(outcome("b", Result.ALLOWED, null), null);
        limits.add(outcome("c", Result.ALLOWED, null), null);
        limits.add(outcome("a", Result.ALLOWED, new LimitState(7, Duration.ZERO)), null);
        assertThat(names(limits)).containsExactly("a", "b", "c");
        assertThat(limits.entries().get(0).outcome().state().available()).isEqualTo(7);
        assertThat(limits.isEmpty()).isFalse();
    }

    @Test
    void failuresAndShadowLimitsAreNotReported() {
        ResponseLimits limits = new ResponseLimits();
        limits.add(outcome("a", Result.ERROR, null), null);
        limits.add(new RateLimitOutcome("s", "s", "k", "rate_limit:{s}", SPEC, 1, Result.SHADOW_REJECTED,
                Duration.ofMillis(300), Duration.ZERO, null, null, true), null);
        assertThat(limits.isEmpty()).isTrue();
        assertThat(limits.entries()).isEmpty();
    }

    @Test
    void aStateReadLaterJoinsItsDecisionUnlessALaterOneReplacedIt() {
        for (int others = 0; others < 2; others++) {
            ResponseLimits limits = new ResponseLimits();
            if (others == 1) {
                limits.add(outcome("first", Result.ALLOWED, null), null);
            }
            limits.add(outcome("a", Result.ALLOWED, null), null);
            ResponseLimits.Entry decided = limits.entries().get(others);
            limits.state(decided, new LimitState(5, Duration.ZERO));
            assertThat(limits.entries().get(others).state().available()).isEqualTo(5);

            limits.add(outcome("a", Result.ALLOWED, new LimitState(3, Duration.ZERO)), null);
            ResponseLimits.Entry later = limits.entries().get(others);
            limits.state(decided, new LimitState(4, Duration.ZERO));
            assertThat(limits.entries().get(others)).isEqualTo(later);
        }
    }

    @Test
    void aRejectionToldByItsExceptionKeepsThePermitsItsDecisionLeft() {
        for (int others = 0; others < 2; others++) {
            ResponseLimits limits = new ResponseLimits();
            if (others == 1) {
                limits.add(outcome("first", Result.ALLOWED, null), null);
            }
            limits.add(outcome("a", Result.REJECTED, new LimitState(2, Duration.ofMillis(300))), null);
            limits.add(outcome("a", Result.REJECTED, null), null);
            assertThat(limits.entries().get(others).outcome().state().available()).isEqualTo(2);
        }
    }

    @Test
    void severalLimitsRenderOneItemEachInTheOrderFirstMet() {
        ResponseLimits limits = new ResponseLimits();
        limits.add(outcome("a", Result.ALLOWED, new LimitState(9, Duration.ofMillis(100))), null);
        limits.add(outcome("b", Result.ALLOWED, null), null);
        limits.add(outcome("c", Result.REJECTED, new LimitState(0, Duration.ofMillis(300))), null);
        RateLimitHeaders headers = new RateLimitHeaders(new HeadersProperties());

        Map<String, String> rendered = headers.render(limits.entries());
        assertThat(rendered).containsExactly(
                Map.entry("RateLimit-Policy", "\"a\";q=10;w=1, \"b\";q=10;w=1, \"c\";q=10;w=1"),
                Map.entry("RateLimit", "\"a\";r=9;t=1, \"c\";r=0;t=1"));
        Map<String, String> handed = new LinkedHashMap<>();
        headers.render(limits.entries(), handed::put);
        assertThat(handed).containsExactlyEntriesOf(rendered);
    }
}
