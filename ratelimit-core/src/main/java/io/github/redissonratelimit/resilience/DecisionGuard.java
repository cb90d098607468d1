package io.github.redissonratelimit.resilience;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitBackendUnavailableException.Reason;
import io.github.redissonratelimit.limiter.Completions;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.log.LogSafe;
import io.github.redissonratelimit.outcome.CircuitState;
import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.resilience.MasterCircuits.MasterCircuit;

/**
 * What {@link ResilientRateLimitBackend} does with one call to its delegate: refuses it while the master's circuit
 * is open, awaits it for at most the deadline, and turns what came back into a decision, a failure of the master (an
 * error, or no answer within the liveness time), or a doubt (a missed deadline), telling the listeners.
 */
final class DecisionGuard {

    private static final Log logger = LogFactory.getLog(ResilientRateLimitBackend.class);
    private static final Duration MIN_RETRY_AFTER = Duration.ofSeconds(1);

    private final Duration timeout;
    private final DecisionDeadlines deadlines;
    private final Supplier<List<RateLimitListener>> listeners;
    private final LongAdder failures = new LongAdder();
    private final LongAdder skipped = new LongAdder();

    DecisionGuard(Duration timeout, Supplier<List<RateLimitListener>> listeners) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive but was " + timeout);
        }
        this.timeout = timeout;
        this.deadlines = new DecisionDeadlines(timeout);
        this.listeners = listeners;
    }

    /** A decision not asked for: the circuit of the limiter's master is open. */
    CompletableFuture<Decision> skipped(String limiterName, MasterCircuit circuit) {
        skipped.increment();
        listeners.get().forEach(listener -> listener.onBackendSkipped(limiterName));
        Duration retryAfter = circuit.breaker().remainingOpenDuration();
        return CompletableFuture.failedFuture(new RateLimitBackendUnavailableException(limiterName,
                Reason.CIRCUIT_OPEN, max(retryAfter, MIN_RETRY_AFTER), "Redis" + OutageLog.on(circuit)
                        + " is skipped for " + retryAfter.toMillis() + "ms more after repeated failures",
                circuit.lastFailure()));
    }

    /** The delegate's pending decision, awaited for at most the deadline; what came back settles the circuit. */
    CompletableFuture<Decision> within(String limiterName, MasterCircuit circuit,
            CompletableFuture<Decision> pending) {
        long sentAt = System.nanoTime();
        return deadlines.within(pending.copy(), sentAt).handle((decision, error) -> settle(limiterName, circuit,
                pending, decision, Completions.unwrap(error), sentAt));
    }

    /**
     * A call besides a decision (a refund, a state read), within the same deadline; not at all while the circuit is
     * not closed. Its failures do not count towards opening the circuit.
     */
    <T> CompletableFuture<T> bounded(String limiterName, MasterCircuit circuit, Supplier<CompletionStage<T>> call) {
        if (circuit.breaker().state() != CircuitState.CLOSED) {
            return CompletableFuture.failedFuture(new RateLimitBackendUnavailableException(limiterName,
                    Reason.CIRCUIT_OPEN, max(circuit.breaker().remainingOpenDuration(), MIN_RETRY_AFTER),
                    "Redis" + OutageLog.on(circuit) + " is skipped after repeated failures", circuit.lastFailure()));
        }
        CompletableFuture<T> pending;
        try {
            pending = call.get().toCompletableFuture();
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        return deadlines.within(pending.copy()).handle((value, error) -> {
            Throwable cause = Completions.unwrap(error);
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
            Decision decision, Throwable error, long sentAt) {
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
        failures.increment();
        listeners.get().forEach(listener -> listener.onBackendFailure(limiterName, error));
        if (logger.isDebugEnabled()) {
            logger.debug(LogSafe.text("No rate limit decision for " + limiterName + ": " + OutageLog.describe(error)));
        }
        if (timedOut) {
            circuit.doubt(pending); // late is not down: the answer, or its absence, settles it
        }
        else {
            circuit.failed(error);
            breaker.onFailure();
        }
        throw unavailable(limiterName, circuit, timedOut ? Reason.TIMEOUT : Reason.ERROR, error,
                Duration.ofNanos(System.nanoTime() - sentAt));
    }

    private RateLimitBackendUnavailableException unavailable(String limiterName, MasterCircuit circuit, Reason reason,
            Throwable error) {
        return unavailable(limiterName, circuit, reason, error, Duration.ZERO);
    }

    private RateLimitBackendUnavailableException unavailable(String limiterName, MasterCircuit circuit, Reason reason,
            Throwable error, Duration waited) {
        return new RateLimitBackendUnavailableException(limiterName, reason,
                max(circuit.breaker().remainingOpenDuration(), MIN_RETRY_AFTER), waited,
                reason == Reason.TIMEOUT ? "Redis did not answer within " + timeout.toMillis() + "ms"
                        : OutageLog.describe(error), error);
    }

    Duration timeout() {
        return timeout;
    }

    long failures() {
        return failures.sum();
    }

    long skipped() {
        return skipped.sum();
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
