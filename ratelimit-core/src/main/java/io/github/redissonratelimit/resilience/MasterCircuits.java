package io.github.redissonratelimit.resilience;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

import io.github.redissonratelimit.limiter.Completions;
import io.github.redissonratelimit.limiter.MasterLocator;
import io.github.redissonratelimit.outcome.CircuitState;

/**
 * One {@link CircuitBreaker} per Redis master, created at the first call to it: a master that fails opens
 * only its own. A master that no longer holds any slot (replaced by its promoted replica) is forgotten, so that
 * its last state does not outlive it.
 *
 * <p>A decision that missed its deadline is neither a success nor a failure of its master's circuit: it is a doubt
 * ({@link MasterCircuit#doubt}), which its answer settles. An answer within the liveness time (late, yet an answer)
 * proves the master alive and counts as a success; a connection error counts as a failure, and so does no answer
 * at all within the liveness time, after which the command is cancelled. So a master that answers slowly, or a
 * JVM too busy to read the answers in time, costs each call the deadline but never opens the circuit.
 */
final class MasterCircuits {

    /** Told about every change of a master's circuit, outside of any lock. */
    @FunctionalInterface
    interface Listener {

        void onStateChange(MasterCircuit circuit, CircuitState from, CircuitState to);
    }

    private final int failureThreshold;
    private final Duration openDuration;
    private final Duration liveness;
    private final DecisionDeadlines doubts;
    private final Listener listener;
    private final ConcurrentMap<String, MasterCircuit> circuits = new ConcurrentHashMap<>();
    private final LongAdder forgottenLateAnswers = new LongAdder();
    private final LongAdder forgottenUnanswered = new LongAdder();

    /**
     * @param deadline the decision deadline, from which a doubt is counted
     * @param liveness the longest a master may take to answer, from the start of a decision, before it counts as
     * down; longer than {@code deadline}
     */
    MasterCircuits(int failureThreshold, Duration openDuration, Duration deadline, Duration liveness,
            Listener listener) {
        if (liveness.compareTo(deadline) <= 0) {
            throw new IllegalArgumentException("liveness must be longer than the deadline (" + deadline.toMillis()
                    + "ms) but was " + liveness.toMillis() + "ms");
        }
        this.failureThreshold = failureThreshold;
        this.openDuration = openDuration;
        this.liveness = liveness;
        this.doubts = new DecisionDeadlines(liveness.minus(deadline));
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
        return new MasterCircuit(master, failureThreshold, openDuration, listener, this);
    }

    Duration liveness() {
        return liveness;
    }

    /** The state of each master among {@code current} that was called, by master; forgets the others. */
    Map<String, CircuitState> states(Set<String> current) {
        if (!current.isEmpty()) {
            circuits.values().removeIf(circuit -> {
                if (current.contains(circuit.master())) {
                    return false;
                }
                forgottenLateAnswers.add(circuit.lateAnswers());
                forgottenUnanswered.add(circuit.unanswered());
                return true;
            });
        }
        Map<String, CircuitState> states = new TreeMap<>();
        circuits.forEach((master, circuit) -> states.put(master, circuit.breaker().state()));
        return states;
    }

    /** Late answers of every master's circuit so far, including forgotten ones. */
    long lateAnswers() {
        return forgottenLateAnswers.sum() + circuits.values().stream().mapToLong(MasterCircuit::lateAnswers).sum();
    }

    /** Unanswered decisions of every master's circuit so far, including forgotten ones. */
    long unanswered() {
        return forgottenUnanswered.sum() + circuits.values().stream().mapToLong(MasterCircuit::unanswered).sum();
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

    /** A master's breaker, with the last failure that counted towards it and what its doubts came to. */
    static final class MasterCircuit {

        private final String master;
        private final CircuitBreaker breaker;
        private final MasterCircuits circuits;
        private final LongAdder lateAnswers = new LongAdder();
        private final LongAdder unanswered = new LongAdder();
        private volatile Throwable lastFailure;

        MasterCircuit(String master, int failureThreshold, Duration openDuration, Listener listener,
                MasterCircuits circuits) {
            this.master = master;
            this.circuits = circuits;
            this.breaker = new CircuitBreaker(failureThreshold, openDuration,
                    (from, to) -> listener.onStateChange(this, from, to));
        }

        /**
         * {@code pending} missed its deadline (its caller has had its outage-policy decision): waits for its answer
         * until the liveness time, then settles the doubt on the breaker. An answer, even an error that is not an
         * outage (a script's), is a success; an outage error is a failure; no answer is a failure too, and
         * {@code pending} is then cancelled. Something else cancelling {@code pending} settles nothing (a probe in
         * flight is given back). An outcome learnt after the circuit changed state tells nothing of the new state.
         */
        void doubt(CompletableFuture<?> pending) {
            int changesThen = breaker.changes();
            circuits.doubts.within(pending.copy()).whenComplete((answer, failure) -> {
                Throwable error = Completions.unwrap(failure);
                if (error instanceof TimeoutException && pending.cancel(false)) {
                    failed(new TimeoutException("no answer within " + circuits.liveness.toMillis() + "ms"));
                    breaker.onFailure(changesThen);
                    unanswered.increment(); // counted once settled, so that a count seen implies its breaker state
                }
                else {
                    // answered, or answered just as the liveness time ran out: what pending holds settles it
                    pending.whenComplete((ignored, outcome) -> settleDoubt(pending, Completions.unwrap(outcome),
                            changesThen));
                }
            });
        }

        /** An outcome learnt after the circuit changed state (e.g. it opened meanwhile) tells nothing of the new one. */
        private void settleDoubt(CompletableFuture<?> pending, Throwable error, int changesThen) {
            if (error == null || !BackendErrors.isBackendError(error)) {
                breaker.onSuccess(changesThen);
                lateAnswers.increment();
            }
            else if (pending.isCancelled()) {
                breaker.onInconclusive(changesThen);
            }
            else {
                failed(error);
                breaker.onFailure(changesThen);
            }
        }

        /** Decisions that missed their deadline and were answered within the liveness time. */
        long lateAnswers() {
            return lateAnswers.sum();
        }

        /** Decisions that missed their deadline and had no answer within the liveness time. */
        long unanswered() {
            return unanswered.sum();
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
