package io.github.redissonratelimit.resilience;

import io.github.redissonratelimit.outcome.CircuitState;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import io.github.redissonratelimit.limiter.DelegatingRateLimitBackend;
import io.github.redissonratelimit.limiter.MasterLocator;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.outcome.CircuitState;

/**
 * One {@link CircuitBreaker} per Redis master, created at the first call to it: a master that fails opens
 * only its own. A master that no longer holds any slot (replaced by its promoted replica) is forgotten, so that
 * its last state does not outlive it.
 */
final class MasterCircuits {

    /** Told about every change of a master's circuit, outside of any lock. */
    @FunctionalInterface
    interface Listener {

        void onStateChange(MasterCircuit circuit, CircuitState from, CircuitState to);
    }

    private final int failureThreshold;
    private final Duration openDuration;
    private final Listener listener;
    private final ConcurrentMap<String, MasterCircuit> circuits = new ConcurrentHashMap<>();

    MasterCircuits(int failureThreshold, Duration openDuration, Listener listener) {
        this.failureThreshold = failureThreshold;
        this.openDuration = openDuration;
        this.listener = listener;
        // fails fast on a bad threshold or duration, as the single breaker did
        new CircuitBreaker(failureThreshold, openDuration, (from, to) -> { });
    }

    /** The one master of a Redis that is not a cluster, or of a backend that does not tell. */
    static final MasterLocator SINGLE = new MasterLocator() {

        @Override
        public String masterOf(String limiterName) {
            return SINGLE_MASTER;
        }

        @Override
        public Set<String> masters() {
            return Set.of(SINGLE_MASTER);
        }
    };

    MasterCircuit of(String master) {
        MasterCircuit circuit = circuits.get(master);
        return circuit != null ? circuit : circuits.computeIfAbsent(master, this::create);
    }

    private MasterCircuit create(String master) {
        return new MasterCircuit(master, failureThreshold, openDuration, listener);
    }

    /** The state of each master among {@code current} that was called, by master; forgets the others. */
    Map<String, CircuitState> states(Set<String> current) {
        if (!current.isEmpty()) {
            circuits.keySet().retainAll(current);
        }
        Map<String, CircuitState> states = new TreeMap<>();
        circuits.forEach((master, circuit) -> states.put(master, circuit.breaker().state()));
        return states;
    }

    /** {@code OPEN} if any master's circuit is, else {@code HALF_OPEN} if any is, else {@code CLOSED}. */
    static CircuitState worst(Iterable<CircuitState> states) {
        CircuitState worst = CircuitState.CLOSED;
        for (CircuitState state : states) {
            if (state == CircuitState.OPEN) {
                return state;
            }
            if (state == CircuitState.HALF_OPEN) {
                worst = state;
            }
        }
        return worst;
    }

    /** A master's breaker, with the last failure that counted towards it. */
    static final class MasterCircuit {

        private final String master;
        private final CircuitBreaker breaker;
        private volatile Throwable lastFailure;

        MasterCircuit(String master, int failureThreshold, Duration openDuration, Listener listener) {
            this.master = master;
            this.breaker = new CircuitBreaker(failureThreshold, openDuration,
                    (from, to) -> listener.onStateChange(this, from, to));
        }

        String master() {
            return master;
        }

        CircuitBreaker breaker() {
            return breaker;
        }

        Throwable lastFailure() {
            return lastFailure;
        }

        void failed(Throwable error) {
            lastFailure = error;
        }
    }
}
