package io.github.redissonratelimit.operation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;

class LimitOverridesTest {

    private final LimitOverrides overrides = new LimitOverrides();

    private final RateLimitOperation submit = RateLimitOperation.builder("Orders.submit(String)", "order-submit",
            new LimitSpec(5, Duration.ofMinutes(1), RateLimitMode.PER_CLIENT)).permits(2).message("slow down").build();

    private final RateLimitOperation details = RateLimitOperation.builder("Orders.details()", "order-details",
            new LimitSpec(100, Duration.ofSeconds(1), RateLimitMode.OVERALL)).build();

    private static LimitOverride override(String name, long rate, Long permits) {
        return new LimitOverride(name, rate, Duration.ofSeconds(30), permits, "ops", Instant.EPOCH);
    }

    @Test
    void withoutOverridesTheDeclaredListIsReturnedAsItIs() {
        List<RateLimitOperation> declared = List.of(submit, details);

        assertThat(overrides.apply(declared)).isSameAs(declared);
        overrides.replaceAll(Map.of("elsewhere", override("elsewhere", 1, null)));
        assertThat(overrides.apply(declared)).isSameAs(declared);
    }

    @Test
    void anOverriddenLimitGetsTheOverridesRateAndIntervalAndKeepsItsModeAndTheRest() {
        overrides.replaceAll(Map.of("order-submit", override("order-submit", 3, null)));

        List<RateLimitOperation> applied = overrides.apply(List.of(submit, details));

        RateLimitOperation replaced = applied.get(0);
        assertThat(replaced.spec()).isEqualTo(new LimitSpec(3, Duration.ofSeconds(30), RateLimitMode.PER_CLIENT));
        assertThat(replaced.permits()).isEqualTo(2);
        assertThat(replaced.message()).isEqualTo("slow down");
        assertThat(replaced.name()).isEqualTo("order-submit");
        assertThat(replaced.source()).isEqualTo("annotation+override");
        assertThat(applied.get(1)).isSameAs(details);
        assertThat(overrides.apply(List.of(submit)).get(0)).as("built once per override").isSameAs(replaced);
    }

    @Test
    void permitsOfTheOverrideReplaceTheDeclaredOnesAndTooManyPermitsKeepTheDeclaredLimit() {
        overrides.replaceAll(Map.of("order-submit", override("order-submit", 10, 4L)));
        assertThat(overrides.apply(List.of(submit)).get(0).permits()).isEqualTo(4);

        overrides.replaceAll(Map.of("order-submit", override("order-submit", 1, null)));
        assertThat(overrides.apply(List.of(submit)).get(0)).as("2 permits a call cannot pass a rate of 1")
                .isSameAs(submit);
    }

    @Test
    void replacingTellsWhichLimitsChanged() {
        assertThat(overrides.replaceAll(Map.of("a", override("a", 1, null), "b", override("b", 2, null))))
                .containsExactlyInAnyOrder("a", "b");
        assertThat(overrides.replaceAll(Map.of("a", override("a", 1, null), "b", override("b", 3, null))))
                .containsExactly("b");
        assertThat(overrides.replaceAll(Map.of("b", override("b", 3, null)))).containsExactly("a");
        assertThat(overrides.replaceAll(Map.of("b", override("b", 3, null)))).isEmpty();
        assertThat(overrides.current()).containsOnlyKeys("b");
    }

    @Test
    void anOverrideKeepsTheAlgorithmATokenBucketItsBurstAndTheBurstBoundsThePermits() {
        RateLimitOperation bucket = RateLimitOperation.builder("Api.call()", "api", new LimitSpec(10,
                Duration.ofSeconds(1), RateLimitMode.OVERALL, LimitAlgorithm.tokenBucket(50))).permits(20).build();
        overrides.replaceAll(Map.of("api", override("api", 20, null)));
        RateLimitOperation replaced = overrides.apply(List.of(bucket)).get(0);
        assertThat(replaced.spec()).isEqualTo(new LimitSpec(20, Duration.ofSeconds(30), RateLimitMode.OVERALL,
                LimitAlgorithm.tokenBucket(50)));

        RateLimitOperation fixed = RateLimitOperation.builder("Api.fixed()", "fixed", new LimitSpec(10,
                Duration.ofSeconds(1), RateLimitMode.PER_CLIENT, LimitAlgorithm.fixedWindow())).build();
        overrides.replaceAll(Map.of("fixed", override("fixed", 3, null)));
        assertThat(overrides.apply(List.of(fixed)).get(0).spec().algorithm()).isEqualTo(LimitAlgorithm.fixedWindow());

        RateLimitOperation smallBucket = RateLimitOperation.builder("Api.small()", "small", new LimitSpec(10,
                Duration.ofSeconds(1), RateLimitMode.OVERALL, LimitAlgorithm.tokenBucket(2))).build();
        overrides.replaceAll(Map.of("small", override("small", 10, 5L)));
        assertThat(overrides.apply(List.of(smallBucket)).get(0)).as("5 permits a call cannot fit a bucket of 2")
                .isSameAs(smallBucket);
    }

    @Test
    void anOverrideChangesTheRateOfACalendarQuotaButNotItsInterval() {
        ZoneId berlin = ZoneId.of("Europe/Berlin");
        LimitSpec daily = new LimitSpec(1000, Duration.ofDays(1), RateLimitMode.OVERALL,
                LimitAlgorithm.fixedWindow(CalendarPeriod.DAY, berlin));
        RateLimitOperation quota = RateLimitOperation.builder("Api.daily()", "daily", daily).build();

        LimitOverride rateOnly = new LimitOverride("daily", 50, Duration.ofDays(1), null, "ops", Instant.EPOCH);
        assertThat(rateOnly.problemWith(daily)).isNull();
        overrides.replaceAll(Map.of("daily", rateOnly));
        assertThat(overrides.apply(List.of(quota)).get(0).spec()).isEqualTo(new LimitSpec(50, Duration.ofDays(1),
                RateLimitMode.OVERALL, LimitAlgorithm.fixedWindow(CalendarPeriod.DAY, berlin)));

        LimitOverride hourly = new LimitOverride("daily", 50, Duration.ofHours(1), null, "ops", Instant.EPOCH);
        assertThat(hourly.problemWith(daily)).contains("fixed window per day in Europe/Berlin", "cannot change", "interval PT24H");
        assertThatThrownBy(() -> hourly.spec(daily)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fixed window per day in Europe/Berlin");
        overrides.replaceAll(Map.of("daily", hourly));
        assertThat(overrides.apply(List.of(quota)).get(0)).as("not applied: the quota keeps its declared limit")
                .isSameAs(quota);
    }
}
