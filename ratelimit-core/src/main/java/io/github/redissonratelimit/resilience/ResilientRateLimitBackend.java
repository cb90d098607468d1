package io.github.redissonratelimit.resilience;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.util.function.SingletonSupplier;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitBackendUnavailableException.Reason;
import io.github.redissonratelimit.key.LogSafe;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.limiter.DelegatingRateLimitBackend;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.outcome.RateLimitListener;

/**
 * Bounds what a Redis outage costs a rate limited call. Each decision gets at most {@code timeout},
 * whatever Redisson's own timeouts and retries are (the delegate's asynchronous call is awaited for
 * that long, then cancelled); repeated failures open a {@link CircuitBreaker}, after which calls
 * do not touch Redis at all until a probe finds it back.
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
    private final CircuitBreaker circuitBreaker;
    private final Supplier<List<RateLimitListener>> listeners;
    private final LongAdder failures = new LongAdder();
    private final LongAdder skipped = new LongAdder();
    private volatile Throwable lastFailure;

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
        this.listeners = SingletonSupplier.of(() -> List.copyOf(listeners.get()));
        this.circuitBreaker = new CircuitBreaker(failureThreshold, openDuration, this::stateChanged);
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
        if (!circuitBreaker.tryAcquirePermission()) {
            skipped.increment();
            listeners.get().forEach(listener -> listener.onBackendSkipped(limiterName));
            Duration retryAfter = circuitBreaker.remainingOpenDuration();
            return CompletableFuture.failedFuture(new RateLimitBackendUnavailableException(limiterName,
                    Reason.CIRCUIT_OPEN, max(retryAfter, MIN_RETRY_AFTER), "Redis is skipped for "
                            + retryAfter.toMillis() + "ms more after repeated failures", lastFailure));
        }
        CompletableFuture<Decision> pending;
        try {
            pending = delegate.acquire(limiterName, spec, permits).toCompletableFuture();
        }
        catch (RuntimeException | Error ex) {
            pending = CompletableFuture.failedFuture(ex);
        }
        CompletableFuture<Decision> sent = pending;
        return pending.copy().orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
                .handle((decision, error) -> settle(limiterName, sent, decision, unwrap(error)));
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
        if (circuitBreaker.state() != CircuitState.CLOSED) {
            return CompletableFuture.failedFuture(new RateLimitBackendUnavailableException(limiterName,
                    Reason.CIRCUIT_OPEN, max(circuitBreaker.remainingOpenDuration(), MIN_RETRY_AFTER),
                    "Redis is skipped after repeated failures", lastFailure));
        }
        CompletableFuture<T> pending;
        try {
            pending = call.get().toCompletableFuture();
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        return pending.copy().orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS).handle((value, error) -> {
            Throwable cause = unwrap(error);
            if (cause == null) {
                return value;
            }
            if (cause instanceof TimeoutException) {
                pending.cancel(false);
                throw unavailable(limiterName, Reason.TIMEOUT, cause);
            }
            throw rethrow(cause);
        });
    }

    private Decision settle(String limiterName, CompletableFuture<Decision> pending, Decision decision,
            Throwable error) {
        if (error == null) {
            circuitBreaker.onSuccess();
            return decision;
        }
        if (!BackendErrors.isBackendError(error)) {
            circuitBreaker.onInconclusive();
            throw rethrow(error);
        }
        boolean timedOut = error instanceof TimeoutException;
        if (timedOut) {
            pending.cancel(false);
        }
        failures.increment();
        lastFailure = error;
        listeners.get().forEach(listener -> listener.onBackendFailure(limiterName, error));
        if (logger.isDebugEnabled()) {
            logger.debug(LogSafe.text("No rate limit decision for " + limiterName + ": " + describe(error)));
        }
        circuitBreaker.onFailure();
        throw unavailable(limiterName, timedOut ? Reason.TIMEOUT : Reason.ERROR, error);
    }

    private RateLimitBackendUnavailableException unavailable(String limiterName, Reason reason, Throwable error) {
        return new RateLimitBackendUnavailableException(limiterName, reason,
                max(circuitBreaker.remainingOpenDuration(), MIN_RETRY_AFTER),
                reason == Reason.TIMEOUT ? "Redis did not answer within " + timeout.toMillis() + "ms"
                        : describe(error), error);
    }

    private void stateChanged(CircuitState from, CircuitState to) {
        if (to == CircuitState.OPEN && from == CircuitState.CLOSED) {
            logger.warn("Redis failed " + circuitBreaker.failureThreshold() + " rate limit decisions in a row (last: "
                    + LogSafe.text(describe(lastFailure)) + "); skipping Redis for " + circuitBreaker.openDuration().toMillis()
                    + "ms at a time until it answers again. Meanwhile each limit applies its on-backend-error "
                    + "policy (allow or deny).");
        }
        else if (to == CircuitState.CLOSED) {
            logger.info("Redis answers rate limit decisions again; limits apply normally.");
        }
        else if (logger.isDebugEnabled()) {
            logger.debug("Rate limit circuit " + from + " -> " + to);
        }
        listeners.get().forEach(listener -> listener.onCircuitStateChange(from, to));
    }

    /** The circuit's state: {@code CLOSED} while Redis answers. */
    public CircuitState getState() {
        return circuitBreaker.state();
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
