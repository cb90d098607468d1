package io.github.redissonratelimit.resilience;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.redisson.client.RedisConnectionException;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitBackendUnavailableException.Reason;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LocalRejectionCache;
import io.github.redissonratelimit.limiter.MasterLocator;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.outcome.CircuitState;
import io.github.redissonratelimit.outcome.RateLimitListener;

/**
 * One circuit per master: limiters are routed to their master's breaker by the backend's {@link MasterLocator}
 * (here a scripted one: names starting with {@code a:} live on master A, the others on B).
 */
class PerMasterCircuitTest {

    private static final LimitSpec SPEC = new LimitSpec(5, Duration.ofMinutes(1), RateLimitMode.OVERALL);

    private final List<String> events = new CopyOnWriteArrayList<>();
    private final AtomicInteger callsToA = new AtomicInteger();
    private final AtomicInteger callsToB = new AtomicInteger();
    private volatile Set<String> masters = Set.of("A", "B");
    private volatile boolean aIsDown = true;

    /** Master A refuses connections while {@code aIsDown}; B always answers. */
    private final class TwoMasters implements RateLimitBackend, MasterLocator {

        @Override
        public CompletionStage<Decision> acquire(AcquireRequest request) {
            String limiterName = request.limiterName();
            LimitSpec spec = request.spec();
            long permits = request.permits();
            if (masterOf(limiterName).equals("A")) {
                callsToA.incrementAndGet();
                if (aIsDown) {
                    return CompletableFuture.failedFuture(new RedisConnectionException("A is down"));
                }
            }
            else {
                callsToB.incrementAndGet();
            }
            return CompletableFuture.completedFuture(Decision.allow());
        }

        @Override
        public String masterOf(String limiterName) {
            return limiterName.startsWith("a:") ? "A" : "B";
        }

        @Override
        public Set<String> masters() {
            return masters;
        }
    }

    private final RateLimitListener listener = new RateLimitListener() {
        @Override
        public void onOutcomes(List<io.github.redissonratelimit.outcome.RateLimitOutcome> outcomes) {
        }

        @Override
        public void onCircuitStateChange(String master, CircuitState from, CircuitState to) {
            events.add(master + " " + from + "->" + to);
        }
    };

    private ResilientRateLimitBackend resilient(RateLimitBackend delegate) {
        return new ResilientRateLimitBackend(delegate, Duration.ofSeconds(5), 3, Duration.ofMinutes(1),
                List.of(listener));
    }

    @Test
    void aFailingMasterOpensOnlyItsOwnCircuit() {
        ResilientRateLimitBackend backend = resilient(new TwoMasters());
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> acquire(backend, "a:user", SPEC, 1))
                    .isInstanceOfSatisfying(RateLimitBackendUnavailableException.class,
                            ex -> assertThat(ex.getReason()).isEqualTo(Reason.ERROR));
            assertThat(acquire(backend, "b:user", SPEC, 1).allowed()).isTrue();
        }
        assertThat(events).containsExactly("A CLOSED->OPEN");
        assertThat(backend.getMasterStates()).isEqualTo(Map.of("A", CircuitState.OPEN, "B", CircuitState.CLOSED));
        assertThat(backend.getState()).isEqualTo(CircuitState.OPEN);

        assertThatThrownBy(() -> acquire(backend, "a:other", SPEC, 1))
                .isInstanceOfSatisfying(RateLimitBackendUnavailableException.class, ex -> {
                    assertThat(ex.getReason()).isEqualTo(Reason.CIRCUIT_OPEN);
                    assertThat(ex.getMessage()).contains("master A");
                });
        assertThat(callsToA).hasValue(3);
        for (int i = 0; i < 10; i++) {
            assertThat(acquire(backend, "b:user" + i, SPEC, 1).allowed()).isTrue();
        }
        assertThat(callsToB).hasValue(13);
        assertThat(backend.getFailureCount()).isEqualTo(3);
        assertThat(backend.getSkippedCount()).isEqualTo(1);
    }

    @Test
    void aMasterThatLostItsSlotsIsForgotten() {
        ResilientRateLimitBackend backend = resilient(new TwoMasters());
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> acquire(backend, "a:user", SPEC, 1));
        }
        assertThat(acquire(backend, "b:user", SPEC, 1).allowed()).isTrue();
        assertThat(backend.getState()).isEqualTo(CircuitState.OPEN);
        masters = Set.of("A2", "B"); // A's replica took over its slots
        assertThat(backend.getMasterStates()).isEqualTo(Map.of("B", CircuitState.CLOSED));
        assertThat(backend.getState()).isEqualTo(CircuitState.CLOSED);
    }

    @Test
    void theOldListenerMethodIsStillTold() {
        List<String> old = new CopyOnWriteArrayList<>();
        RateLimitListener oldListener = new RateLimitListener() {
            @Override
            public void onOutcomes(List<io.github.redissonratelimit.outcome.RateLimitOutcome> outcomes) {
            }

            @Override
            public void onCircuitStateChange(CircuitState from, CircuitState to) {
                old.add(from + "->" + to);
            }
        };
        ResilientRateLimitBackend backend = new ResilientRateLimitBackend(new TwoMasters(), Duration.ofSeconds(5), 1,
                Duration.ofMinutes(1), List.of(oldListener));
        assertThatThrownBy(() -> acquire(backend, "a:user", SPEC, 1));
        assertThat(old).containsExactly("CLOSED->OPEN");
    }

    @Test
    void findsTheMastersUnderTheLibrarysDecoratorsAndFallsBackToOneCircuit() {
        // under other decorators the masters are given, not looked for through them
        TwoMasters masters = new TwoMasters();
        ResilientRateLimitBackend wrapped = new ResilientRateLimitBackend(new LocalRejectionCache(masters, 100), masters,
                Duration.ofSeconds(5), 3, Duration.ofMinutes(1), () -> List.of(listener));
        assertThatThrownBy(() -> acquire(wrapped, "a:user", SPEC, 1));
        assertThat(wrapped.getMasterStates()).containsOnlyKeys("A");

        RateLimitBackend plain = request -> CompletableFuture.failedFuture(
                new RedisConnectionException("down"));
        ResilientRateLimitBackend single = resilient(plain);
        assertThatThrownBy(() -> acquire(single, "a:user", SPEC, 1));
        assertThatThrownBy(() -> acquire(single, "b:user", SPEC, 1));
        assertThat(single.getMasterStates()).isEqualTo(Map.of(MasterLocator.SINGLE_MASTER, CircuitState.CLOSED));
        assertThatThrownBy(() -> acquire(single, "b:user", SPEC, 1));
        assertThat(single.getMasterStates()).isEqualTo(Map.of(MasterLocator.SINGLE_MASTER, CircuitState.OPEN));
    }
}
