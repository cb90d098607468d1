package io.github.redissonratelimit.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.ZoneId;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.operation.RateLimitOperation;

/** Pure logic: an override of a calendar quota changes its rate, never its period. */
class OverrideRequestTest {

    private static final List<RateLimitOperation> DAILY = List.of(RateLimitOperation.builder("Api.export()", "export",
            new LimitSpec(1000, Duration.ofDays(1), RateLimitMode.OVERALL,
                    LimitAlgorithm.fixedWindow(CalendarPeriod.DAY, ZoneId.of("Europe/Berlin")))).build());

    private static final List<RateLimitOperation> BUCKET = List.of(RateLimitOperation.builder("Api.search()", "search",
            new LimitSpec(10, Duration.ofSeconds(1), RateLimitMode.OVERALL, LimitAlgorithm.tokenBucket(50))).build());

    @Test
    void aCalendarQuotasOverrideNeedsNoIntervalAndTakesThePeriods() {
        assertThat(OverrideRequest.of("50", null, null, DAILY))
                .isEqualTo(new OverrideRequest(50, Duration.ofDays(1), null));
        assertThat(OverrideRequest.of("50", "1d", null, DAILY).interval()).isEqualTo(Duration.ofDays(1));
    }

    @Test
    void aCalendarQuotasIntervalCannotBeOverridden() {
        assertThatThrownBy(() -> OverrideRequest.of("50", "1h", null, DAILY)).isInstanceOf(RefusedWrite.class)
                .hasMessage("interval '1h' cannot be overridden: the limit is a fixed window per day in Europe/Berlin, whose window is the "
                        + "period; leave interval out to override the rate only");
    }

    @Test
    void otherLimitsStillNeedAnInterval() {
        assertThatThrownBy(() -> OverrideRequest.of("50", null, null, BUCKET)).isInstanceOf(RefusedWrite.class)
                .hasMessageContaining("interval is required");
        assertThat(OverrideRequest.of("20", "1s", null, BUCKET)).isEqualTo(new OverrideRequest(20,
                Duration.ofSeconds(1), null));
    }
}
