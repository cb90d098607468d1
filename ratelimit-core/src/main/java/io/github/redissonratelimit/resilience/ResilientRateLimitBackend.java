package io.github.redissonratelimit.resilience;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.util.function.SingletonSupplier;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitBackendUnavailableException.Reason;
import io.github.redissonratelimit.limiter.MasterLocator;
import io.github.redissonratelimit.log.LogSafe;
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
 * twentieth of it, see {@link DecisionDeadlines}), whatever Redisson's own timeouts and retries are (the delegate's
 * asynchronous call is awaited for that long, then cancelled); repeated failures open a {@link CircuitBreaker}, after which calls
 * do not touch Redis at all until a probe finds it back.
 *
 * <p>When the delegate is a {@link MasterLocator} (the Redisson backend on a Redis Cluster), each master has its
 * own circuit: a dead master opens only the circuit of the limiters in its slots, and the others keep deciding.
 *
 * <p>A call without a decision throws {@link RateLimitBackendUnavailableException}; what it then
 * means (run the method anyway, or refuse it) is the caller's policy, see
 * {@link io.github.redissonratelimit.annotation.BackendErrorPolicy}. Only backend failures are handled
 * this way (see {@link BackendErrors}); every other exception reaches the caller unchanged.
 *
 * <p>A command that Redis runs after its caller gave up (e.g. a late answer) may still take a permit.
 */
public final class ResilientRateLimitBackend implements DelegatingRateLimitBackend {

    private static final Log logger = LogFactory.getLog(ResilientRateLimitBackend.class);
    private static final Duration MIN_RETRY_AFTER = Duration.ofSeconds(1);

    private final RateLimitBackend delegate;
    private final Duration timeout;
    private final DecisionDeadlines deadlines;
    private final MasterLocator masters;
    private final MasterCircuits circuits;
    private final Supplier<List<RateLimitListener>> listeners;
    private final LongAdder failures = new LongAdder();
    private final LongAdder skipped = new LongAdder();

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
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive but was " + timeout);
        }
        this.timeout = timeout;
        this.deadlines = new DecisionDeadlines(timeout);
        this.listeners = SingletonSupplier.of(() -> List.copyOf(listeners.get()));
        this.masters = MasterCircuits.locatorOf(delegate);
        this.circuits = new MasterCircuits(failureThreshold, openDuration, this::stateChanged);
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
    public CompletableFuture<Decision> acquire(String limiterName, LimitSpec spec, long permits) {
        MasterCircuit circuit = circuits.of(masters.masterOf(limiterName));
        if (!circuit.breaker().tryAcquirePermission()) {
            skipped.increment();
            listeners.get().forEach(listener -> listener.onBackendSkipped(limiterName));
            Duration retryAfter = circuit.breaker().remainingOpenDuration();
            return CompletableFuture.failedFuture(new RateLimitBackendUnavailableException(limiterName,
                    Reason.CIRCUIT_OPEN, max(retryAfter, MIN_RETRY_AFTER), "Redis" + on(circuit) + " is skipped for "
                            + retryAfter.toMillis() + "ms more after repeated failures", circuit.lastFailure()));
        }
        CompletableFuture<Decision> pending;
        try {
            pending = delegate.acquire(limiterName, spec, permits).toCompletableFuture();
        }
        catch (RuntimeException | Error ex) {
            pending = CompletableFuture.failedFuture(ex);
        }
        CompletableFuture<Decision> sent = pending;
        return deadlines.within(pending.copy())
                .handle((decision, error) -> settle(limiterName, circuit, sent, decision, unwrap(error)));
    }

    /**
     * Gives permits back through the delegate, within the same deadline; not at all while the circuit is
     * not closed. Its failures do not count towards opening the circuit.
     */
    @Override
    public CompletableFuture<Void> release(String limiterName, LimitSpec spec, long permits) {
        return bounded(limiterName, () -> delegate.release(limiterName, spec, permits));
    }

    /** Reads the delegate's state within the same deadline; not at all while the circuit is not closed. */
    @Override
    public CompletableFuture<LimitState> state(String limiterName, LimitSpec spec) {
        return bounded(limiterName, () -> delegate.state(limiterName, spec));
    }

    private <T> CompletableFuture<T> bounded(String limiterName, Supplier<CompletionStage<T>> call) {
        MasterCircuit circuit = circuits.of(masters.masterOf(limiterName));
        if (circuit.breaker().state() != CircuitState.CLOSED) {
            return CompletableFuture.failedFuture(new RateLimitBackendUnavailableException(limiterName,
                    Reason.CIRCUIT_OPEN, max(circuit.breaker().remainingOpenDuration(), MIN_RETRY_AFTER),
                    "Redis" + on(circuit) + " is skipped after repeated failures", circuit.lastFailure()));
        }
        CompletableFuture<T> pending;
        try {
            pending = call.get().toCompletableFuture();
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        return deadlines.within(pending.copy()).handle((value, error) -> {
            Throwable cause = unwrap(error);
            if (cause == null) {
                return value;
            }
            if (cause instanceof TimeoutException) {
                pending.cancel(false);
                throw unavailable(limiterName, circuit, Reason.TIMEOUT, cause);
            }
            throw rethrow(cause);
        });
    }

    private Decision settle(String limiterName, MasterCircuit circuit, CompletableFuture<Decision> pending,
            Decision decision, Throwable error) {
        CircuitBreaker breaker = circuit.breaker();
        if (error == null) {
            breaker.onSuccess();
            return decision;
        }
        if (!BackendErrors.isBackendError(error)) {
            breaker.onInconclusive();
            throw rethrow(error);
        }
        boolean timedOut = error instanceof TimeoutException;
        if (timedOut) {
            pending.cancel(false);
        }
        failures.increment();
        circuit.failed(error);
        listeners.get().forEach(listener -> listener.onBackendFailure(limiterName, error));
        if (logger.isDebugEnabled()) {
            logger.debug(LogSafe.text("No rate limit decision for " + limiterName + ": " + describe(error)));
        }
        breaker.onFailure();
        throw unavailable(limiterName, circuit, timedOut ? Reason.TIMEOUT : Reason.ERROR, error);
    }

    private RateLimitBackendUnavailableException unavailable(String limiterName, MasterCircuit circuit, Reason reason,
            Throwable error) {
        return new RateLimitBackendUnavailableException(limiterName, reason,
                max(circuit.breaker().remainingOpenDuration(), MIN_RETRY_AFTER),
                reason == Reason.TIMEOUT ? "Redis did not answer within " + timeout.toMillis() + "ms"
                        : describe(error), error);
    }

    private void stateChanged(MasterCircuit circuit, CircuitState from, CircuitState to) {
        String redis = "Redis" + on(circuit);
        if (to == CircuitState.OPEN && from == CircuitState.CLOSED) {
            boolean single = isSingle(circuit);
            logger.warn(redis + " failed " + circuit.breaker().failureThreshold() + " rate limit decisions in a row "
                    + "(last: " + LogSafe.text(describe(circuit.lastFailure())) + "); skipping " + (single ? "Redis" : "it")
                    + " for " + circuit.breaker().openDuration().toMillis() + "ms at a time until it answers again. "
                    + "Meanwhile each limit " + (single ? "" : "whose keys it holds ")
                    + "applies its on-backend-error policy (local, allow or deny).");
        }
        else if (to == CircuitState.CLOSED) {
            logger.info(redis + " answers rate limit decisions again; limits apply normally.");
        }
        else if (logger.isDebugEnabled()) {
            logger.debug("Rate limit circuit of " + circuit.master() + " " + from + " -> " + to);
        }
        listeners.get().forEach(listener -> listener.onCircuitStateChange(circuit.master(), from, to));
    }

    /**
     * The state of the circuits: {@code CLOSED} while Redis answers; with one circuit per master (Redis Cluster),
     * the worst of them ({@code OPEN} if any master's is, see {@link #getMasterStates()}).
     */
    public CircuitState getState() {
        return MasterCircuits.worst(getMasterStates().values());
    }

    /**
     * The state of each master's circuit, by master ({@code host:port} on a Redis Cluster, {@code "redis"} for a
     * single server or Sentinel), for the masters called so far that still hold slots; empty before the first call.
     */
    public Map<String, CircuitState> getMasterStates() {
        return circuits.states(masters.masters());
    }

    /** Decisions that failed or timed out since start. */
    public long getFailureCount() {
        return failures.sum();
    }

    /** Calls that did not go to Redis because the circuit was open, since start. */
    public long getSkippedCount() {
        return skipped.sum();
    }

    public Duration getTimeout() {
        return timeout;
    }

    @Override
    public RateLimitBackend getDelegate() {
        return delegate;
    }

    private static String on(MasterCircuit circuit) {
        return isSingle(circuit) ? "" : " master " + circuit.master();
    }

    private static boolean isSingle(MasterCircuit circuit) {
        return MasterLocator.SINGLE_MASTER.equals(circuit.master());
    }

    private static String describe(Throwable error) {
        if (error == null) {
            return "none";
        }
        if (error instanceof TimeoutException) {
            return "no answer within the deadline";
        }
        return error.getClass().getSimpleName() + ": " + error.getMessage();
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    private static RuntimeException rethrow(Throwable error) {
        if (error instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (error instanceof Error fatal) {
            throw fatal;
        }
        throw new IllegalStateException(error);
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
