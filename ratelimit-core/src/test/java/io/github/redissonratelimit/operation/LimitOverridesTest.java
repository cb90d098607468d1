package io.github.redissonratelimit.operation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.annotation.RateLimitMode;
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
}
