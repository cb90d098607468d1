package io.github.redissonratelimit.resilience;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.springframework.util.function.SingletonSupplier;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.limiter.MasterLocator;
import io.github.redissonratelimit.limiter.AcquireBatch;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.limiter.DelegatingRateLimitBackend;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.outcome.CircuitState;
import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.resilience.MasterCircuits.MasterCircuit;

/**
 * Bounds what a Redis outage costs a rate limited call. Each decision gets at most {@code timeout} (checked every
 * twentieth of it, see {@link DecisionDeadlines}), whatever Redisson's own timeouts and retries are; repeated
 * failures open a {@link CircuitBreaker}, after which calls do not touch Redis at all until a probe finds it back.
 *
 * <p>A failure is evidence that Redis is down: an error (a lost connection, a refusal), or no answer within the
 * {@code liveness} time. A decision that misses its deadline gets no decision then, but its command goes on: an answer
 * that comes within the liveness time proves Redis alive and counts as a success (a slow Redis, or a JVM too busy to
 * read the answer in time, never opens the circuit); without one, the command is cancelled and counts as a failure
 * (see {@link MasterCircuits}).
 *
 * <p>Given a {@link MasterLocator} (the Redisson backend on a Redis Cluster; by default the delegate when it is one),
 * each master has its own circuit: a dead master opens only the circuit of the limiters in its slots, and the others
 * keep deciding.
 *
 * <p>A call without a decision throws {@link RateLimitBackendUnavailableException}; what it then
 * means (run the method anyway, or refuse it) is the caller's policy, see
 * {@link io.github.redissonratelimit.annotation.BackendErrorPolicy}. Only backend failures are handled
 * this way (see {@link BackendErrors}); every other exception reaches the caller unchanged.
 *
 * <p>A command that Redis runs after its caller gave up (e.g. a late answer) may still take a permit.
 */
public final class ResilientRateLimitBackend implements DelegatingRateLimitBackend, CircuitStates {

    private static final Duration DEFAULT_LIVENESS = Duration.ofSeconds(1);

    /** One master for every limiter: one circuit (a Redis that is not a cluster, or a backend that does not tell). */
    public static final MasterLocator ONE_MASTER = MasterCircuits.SINGLE;

    private final RateLimitBackend delegate;
    private final DecisionGuard guard;
    private final MasterLocator masters;
    private final MasterCircuits circuits;
    private final Supplier<List<RateLimitListener>> listeners;

    /**
     * @param timeout the longest a decision may take
     * @param failureThreshold consecutive failures that open the circuit
     * @param openDuration how long an open circuit skips Redis before probing it again
     */
    public ResilientRateLimitBackend(RateLimitBackend delegate, Duration timeout, int failureThreshold,
            Duration openDuration, List<? extends RateLimitListener> listeners) {
        this(delegate, timeout, failureThreshold, openDuration, () -> listeners);
    }

    /**
     * @param listeners obtained once, at the first failure or circuit change: listeners that use the backend
     * themselves (headers reading the permits left) need not exist when it is created
     */
    public ResilientRateLimitBackend(RateLimitBackend delegate, Duration timeout, int failureThreshold,
            Duration openDuration, Supplier<? extends List<? extends RateLimitListener>> listeners) {
        this(delegate, delegate instanceof MasterLocator locator ? locator : MasterCircuits.SINGLE, timeout,
                failureThreshold, openDuration, listeners);
    }

    /**
     * @param masters which master holds each limiter, one circuit per master (the Redisson backend, also when other
     * decorators sit between it and this one)
     */
    public ResilientRateLimitBackend(RateLimitBackend delegate, MasterLocator masters, Duration timeout,
            int failureThreshold, Duration openDuration, Supplier<? extends List<? extends RateLimitListener>> listeners) {
        this(delegate, masters, timeout, defaultLiveness(timeout), failureThreshold, openDuration, listeners);
    }

    /**
     * @param liveness the longest Redis may take to answer a decision before it counts as down (a failure towards
     * opening the circuit); longer than {@code timeout}
     */
    public ResilientRateLimitBackend(RateLimitBackend delegate, MasterLocator masters, Duration timeout,
            Duration liveness, int failureThreshold, Duration openDuration,
            Supplier<? extends List<? extends RateLimitListener>> listeners) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.listeners = SingletonSupplier.of(() -> List.copyOf(listeners.get()));
        this.guard = new DecisionGuard(timeout, this.listeners);
        this.masters = Objects.requireNonNull(masters, "masters");
        this.circuits = new MasterCircuits(failureThreshold, openDuration, timeout, liveness, this::stateChanged);
    }

    /** The liveness time when none is given: 1 s, or twice {@code timeout} when that is longer. */
    public static Duration defaultLiveness(Duration timeout) {
        Duration twice = timeout.multipliedBy(2);
        return twice.compareTo(DEFAULT_LIVENESS) > 0 ? twice : DEFAULT_LIVENESS;
    }

    public ResilientRateLimitBackend(RateLimitBackend delegate, Duration timeout, int failureThreshold,
            Duration openDuration) {
        this(delegate, timeout, failureThreshold, openDuration, List.<RateLimitListener>of());
    }

    /**
     * The delegate's decision, awaited for at most the timeout; the stage fails with
     * {@link RateLimitBackendUnavailableException} when there is none (never a raw timeout).
     */
    @Override
    public CompletableFuture<Decision> acquire(AcquireRequest request) {
        String limiterName = request.limiterName();
        MasterCircuit circuit = circuitOf(limiterName);
        if (!circuit.breaker().tryAcquirePermission()) {
            return guard.skipped(limiterName, circuit);
        }
        CompletableFuture<Decision> pending;
        try {
            pending = delegate.acquire(request).toCompletableFuture();
        }
        catch (RuntimeException | Error ex) {
            pending = CompletableFuture.failedFuture(ex);
        }
        return givingBackLateHolds(request, pending, guard.within(limiterName, circuit, pending));
    }

    /**
     * The guarded decision; for a limit whose grants are held until their call ends (an in-flight limit), a grant
     * that comes after the caller got no decision (the deadline passed, the caller cancelled) is given back, since no
     * call holds it. A late grant of a rate limit stays charged, as if the call had run.
     */
    private CompletableFuture<Decision> givingBackLateHolds(AcquireRequest request, CompletableFuture<Decision> pending,
            CompletableFuture<Decision> guarded) {
        if (!request.spec().algorithm().held()) {
            return guarded;
        }
        guarded.whenComplete((decided, ex) -> {
            if (ex != null) {
                pending.thenAccept(late -> {
                    if (late.allowed()) {
                        try {
                            delegate.release(request, late);
                        }
                        catch (RuntimeException notGivenBack) {
                            // its lease ends unrenewed one lease period after the grant
                        }
                    }
                });
            }
        });
        return guarded;
    }

    private MasterCircuit circuitOf(String limiterName) {
        return circuits.of(masters.masterOf(limiterName));
    }

    /**
     * Like {@link #acquire}, each request in turn: those whose circuit is open fail at once, the others go to the
     * delegate together, each awaited for at most the timeout.
     */
    @Override
    public List<CompletionStage<Decision>> acquireAll(List<AcquireRequest> requests) {
        MasterCircuit[] asked = new MasterCircuit[requests.size()];
        return AcquireBatch.decorate(requests, delegate, new AcquireBatch.Layer() {

            @Override
            public CompletionStage<Decision> answer(int index) {
                String limiterName = requests.get(index).limiterName();
                MasterCircuit circuit = circuitOf(limiterName);
                asked[index] = circuit;
                return circuit.breaker().tryAcquirePermission() ? null : guard.skipped(limiterName, circuit);
            }

            @Override
            public CompletionStage<Decision> after(int index, CompletionStage<Decision> decision) {
                CompletableFuture<Decision> pending = decision.toCompletableFuture();
                return givingBackLateHolds(requests.get(index), pending,
                        guard.within(requests.get(index).limiterName(), asked[index], pending));
            }
        }, (request, index) -> asked[index].breaker().onInconclusive()); // a probe not sent: probe again
    }

    /**
     * Gives permits back through the delegate, within the same deadline; not at all while the circuit is
     * not closed. Its failures do not count towards opening the circuit.
     */
    @Override
    public CompletableFuture<Void> release(AcquireRequest request, Decision granted) {
        return guard.bounded(request.limiterName(), circuitOf(request.limiterName()),
                () -> delegate.release(request, granted));
    }

    /** Reads the delegate's state within the same deadline; not at all while the circuit is not closed. */
    @Override
    public CompletableFuture<LimitState> state(String limiterName, LimitSpec spec) {
        return guard.bounded(limiterName, circuitOf(limiterName), () -> delegate.state(limiterName, spec));
    }

    private void stateChanged(MasterCircuit circuit, CircuitState from, CircuitState to) {
        OutageLog.circuitChanged(circuit, from, to);
        listeners.get().forEach(listener -> listener.onCircuitStateChange(circuit.master(), from, to));
    }

    /**
     * The state of the circuits: {@code CLOSED} while Redis answers; with one circuit per master (Redis Cluster),
     * the worst of them ({@code OPEN} if any master's is, see {@link #getMasterStates()}).
     */
    @Override
    public CircuitState getState() {
        return MasterCircuits.worst(getMasterStates().values());
    }

    /**
     * The state of each master's circuit, by master ({@code host:port} on a Redis Cluster, {@code "redis"} for a
     * single server or Sentinel), for the masters called so far that still hold slots; empty before the first call.
     */
    @Override
    public Map<String, CircuitState> getMasterStates() {
        return circuits.states(masters.masters());
    }

    /** Decisions that failed or timed out since start. */
    @Override
    public long getFailureCount() {
        return guard.failures();
    }

    @Override
    public long getLateAnswerCount() {
        return circuits.lateAnswers();
    }

    @Override
    public long getUnansweredCount() {
        return circuits.unanswered();
    }

    /** The longest Redis may take to answer before it counts as down. */
    public Duration getLiveness() {
        return circuits.liveness();
    }

    /** Calls that did not go to Redis because the circuit was open, since start. */
    @Override
    public long getSkippedCount() {
        return guard.skipped();
    }

    @Override
    public Duration getTimeout() {
        return guard.timeout();
    }

    @Override
    public RateLimitBackend getDelegate() {
        return delegate;
    }
}
