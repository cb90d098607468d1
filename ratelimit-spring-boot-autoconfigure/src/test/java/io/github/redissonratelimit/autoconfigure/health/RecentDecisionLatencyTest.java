package io.github.redissonratelimit.autoconfigure.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/** The latency window of the health indicator: bounded in size and in age, nearest-rank percentiles. */
class RecentDecisionLatencyTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    @Test
    void emptyWithoutDecisions() {
        RecentDecisionLatency.Snapshot snapshot = new RecentDecisionLatency(8, Duration.ofMinutes(1), now::get).snapshot();
        assertThat(snapshot.decisions()).isZero();
        assertThat(snapshot.p50()).isNull();
        assertThat(snapshot.p99()).isNull();
        assertThat(snapshot.max()).isNull();
    }

    @Test
    void percentilesOfTheDecisionsInTheWindow() {
        RecentDecisionLatency latency = new RecentDecisionLatency(200, Duration.ofMinutes(1), now::get);
        for (int millis = 100; millis >= 1; millis--) {
            latency.record(Duration.ofMillis(millis), now.get());
        }
        RecentDecisionLatency.Snapshot snapshot = latency.snapshot();
        assertThat(snapshot.decisions()).isEqualTo(100);
        assertThat(snapshot.p50()).isEqualTo(Duration.ofMillis(50));
        assertThat(snapshot.p99()).isEqualTo(Duration.ofMillis(99));
        assertThat(snapshot.max()).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void keepsOnlyTheLastCapacityDecisions() {
        RecentDecisionLatency latency = new RecentDecisionLatency(4, Duration.ofMinutes(1), now::get);
        for (int millis = 1; millis <= 10; millis++) {
            latency.record(Duration.ofMillis(millis), now.get());
        }
        RecentDecisionLatency.Snapshot snapshot = latency.snapshot();
        assertThat(snapshot.decisions()).isEqualTo(4);
        assertThat(snapshot.p50()).isEqualTo(Duration.ofMillis(8));
        assertThat(snapshot.max()).isEqualTo(Duration.ofMillis(10));
    }

    @Test
    void forgetsDecisionsOlderThanMaxAge() {
        RecentDecisionLatency latency = new RecentDecisionLatency(16, Duration.ofSeconds(10), now::get);
        latency.record(Duration.ofMillis(500), now.get());
        now.addAndGet(Duration.ofSeconds(11).toNanos());
        latency.record(Duration.ofMillis(2), now.get());
        RecentDecisionLatency.Snapshot snapshot = latency.snapshot();
        assertThat(snapshot.decisions()).isEqualTo(1);
        assertThat(snapshot.max()).isEqualTo(Duration.ofMillis(2));
    }

    @Test
    void needsRoomForOneDecision() {
        assertThatIllegalArgumentException().isThrownBy(() -> new RecentDecisionLatency(0, Duration.ofMinutes(1)));
    }
}
