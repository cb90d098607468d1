package io.github.redissonratelimit.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.outcome.CircuitState;

class CircuitBreakerTest {

    private final AtomicLong now = new AtomicLong();
    private final List<String> changes = new ArrayList<>();
    private final CircuitBreaker breaker = new CircuitBreaker(3, Duration.ofSeconds(2),
            (from, to) -> changes.add(from + "->" + to), now::get);

    private void advance(Duration duration) {
        now.addAndGet(duration.toNanos());
    }

    @Test
    void opensAfterThresholdConsecutiveFailures() {
        breaker.onFailure();
        breaker.onFailure();
        assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
        assertThat(breaker.tryAcquirePermission()).isTrue();

        breaker.onFailure();

        assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
        assertThat(breaker.tryAcquirePermission()).isFalse();
        assertThat(breaker.remainingOpenDuration()).isEqualTo(Duration.ofSeconds(2));
        assertThat(changes).containsExactly("CLOSED->OPEN");
    }

    @Test
    void aSuccessResetsTheFailureCount() {
        breaker.onFailure();
        breaker.onFailure();
        breaker.onSuccess();
        breaker.onFailure();
        breaker.onFailure();

        assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
        assertThat(changes).isEmpty();
    }

    @Test
    void letsExactlyOneProbeThroughAfterTheOpenDuration() {
        open();
        advance(Duration.ofMillis(1_999));
        assertThat(breaker.tryAcquirePermission()).isFalse();
        assertThat(breaker.remainingOpenDuration()).isEqualTo(Duration.ofMillis(1));

        advance(Duration.ofMillis(1));

        assertThat(breaker.tryAcquirePermission()).isTrue();
        assertThat(breaker.state()).isEqualTo(CircuitState.HALF_OPEN);
        assertThat(breaker.tryAcquirePermission()).as("a second caller while the probe runs").isFalse();
        assertThat(breaker.remainingOpenDuration()).isZero();
    }

    @Test
    void aSuccessfulProbeCloses() {
        open();
        advance(Duration.ofSeconds(2));
        breaker.tryAcquirePermission();

        breaker.onSuccess();

        assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
        assertThat(breaker.tryAcquirePermission()).isTrue();
        assertThat(changes).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->CLOSED");
        // the failure count starts from zero again
        breaker.onFailure();
        breaker.onFailure();
        assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
    }

    @Test
    void aFailedProbeOpensForAnotherOpenDuration() {
        open();
        advance(Duration.ofSeconds(5));
        breaker.tryAcquirePermission();

        breaker.onFailure();

        assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
        assertThat(breaker.remainingOpenDuration()).isEqualTo(Duration.ofSeconds(2));
        assertThat(breaker.tryAcquirePermission()).isFalse();
    }

    @Test
    void anInconclusiveProbeLetsTheNextCallProbe() {
        open();
        advance(Duration.ofSeconds(2));
        breaker.tryAcquirePermission();

        breaker.onInconclusive();

        assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
        assertThat(breaker.tryAcquirePermission()).isTrue();
        assertThat(breaker.state()).isEqualTo(CircuitState.HALF_OPEN);
    }

    @Test
    void lateOutcomesWhileOpenDoNotChangeTheState() {
        open();
        breaker.onSuccess();
        breaker.onFailure();

        assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
        assertThat(changes).containsExactly("CLOSED->OPEN");
    }

    @Test
    void rejectsNonsense() {
        assertThatIllegalArgumentException().isThrownBy(() -> new CircuitBreaker(0, Duration.ofSeconds(1), (a, b) -> { }))
                .withMessageContaining("failureThreshold");
        assertThatIllegalArgumentException().isThrownBy(() -> new CircuitBreaker(1, Duration.ZERO, (a, b) -> { }))
                .withMessageContaining("openDuration");
    }

    private void open() {
        for (int i = 0; i < 3; i++) {
            breaker.onFailure();
        }
        assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
    }
}
