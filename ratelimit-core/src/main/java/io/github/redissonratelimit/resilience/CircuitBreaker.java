package io.github.redissonratelimit.resilience;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import io.github.redissonratelimit.outcome.CircuitState;

/**
 * Stops sending requests to a failing backend for a while. {@link CircuitState#CLOSED}: every call goes
 * through; {@code failureThreshold} consecutive failures open the circuit. {@link CircuitState#OPEN}: no call
 * goes through for {@code openDuration}; then the next call is let through as a probe
 * ({@link CircuitState#HALF_OPEN}) while the others keep being refused. The probe's success closes the
 * circuit, its failure opens it again for another {@code openDuration}.
 *
 * <p>Thread-safe; a call in the closed state costs two volatile reads.
 */
final class CircuitBreaker {

    /** Told about every state change, outside of any lock. */
    @FunctionalInterface
    interface StateListener {

        void onStateChange(CircuitState from, CircuitState to);
    }

    private final int failureThreshold;
    private final long openNanos;
    private final LongSupplier nanoClock;
    private final StateListener listener;
    private final AtomicInteger consecutiveFailures = new AtomicInteger();
    private volatile CircuitState state = CircuitState.CLOSED;
    private volatile long openedAt;
    /** Counts the state changes: an outcome learnt late tells about the state it was asked in, not a later one. */
    private volatile int changes;

    public CircuitBreaker(int failureThreshold, Duration openDuration, StateListener listener) {
        this(failureThreshold, openDuration, listener, System::nanoTime);
    }

    CircuitBreaker(int failureThreshold, Duration openDuration, StateListener listener, LongSupplier nanoClock) {
        if (failureThreshold < 1) {
            throw new IllegalArgumentException("failureThreshold must be at least 1 but was " + failureThreshold);
        }
        if (openDuration.isNegative() || openDuration.isZero()) {
            throw new IllegalArgumentException("openDuration must be positive but was " + openDuration);
        }
        this.failureThreshold = failureThreshold;
        this.openNanos = openDuration.toNanos();
        this.listener = Objects.requireNonNull(listener, "listener");
        this.nanoClock = nanoClock;
    }

    public CircuitState state() {
        return state;
    }

    /**
     * Whether a call may go to the backend now. Once the open duration has passed, exactly one caller
     * gets {@code true} (the probe), and must then report {@link #onSuccess}, {@link #onFailure} or
     * {@link #onInconclusive}.
     */
    public boolean tryAcquirePermission() {
        CircuitState current = state;
        if (current == CircuitState.CLOSED) {
            return true;
        }
        return current == CircuitState.OPEN && nanoClock.getAsLong() - openedAt >= openNanos
                && transition(CircuitState.OPEN, CircuitState.HALF_OPEN);
    }

    /** Changes of state so far: an outcome reported with {@link #onSuccess(int)} or {@link #onFailure(int)}. */
    int changes() {
        return changes;
    }

    /** {@link #onSuccess()} if the state has not changed since {@code changes} was read; else nothing. */
    void onSuccess(int changesThen) {
        if (changes == changesThen) {
            onSuccess();
        }
    }

    /** {@link #onFailure()} if the state has not changed since {@code changes} was read; else nothing. */
    void onFailure(int changesThen) {
        if (changes == changesThen) {
            onFailure();
        }
    }

    /** {@link #onInconclusive()} if the state has not changed since {@code changes} was read; else nothing. */
    void onInconclusive(int changesThen) {
        if (changes == changesThen) {
            onInconclusive();
        }
    }

    /** The backend answered. */
    public void onSuccess() {
        CircuitState current = state;
        if (current == CircuitState.CLOSED) {
            if (consecutiveFailures.get() != 0) {
                consecutiveFailures.set(0);
            }
        }
        else if (current == CircuitState.HALF_OPEN) {
            transition(CircuitState.HALF_OPEN, CircuitState.CLOSED);
        }
        // OPEN: a call let through before the circuit opened; the probe decides
    }

    /** The backend failed or did not answer in time. */
    public void onFailure() {
        CircuitState current = state;
        if (current == CircuitState.HALF_OPEN) {
            transition(CircuitState.HALF_OPEN, CircuitState.OPEN);
        }
        else if (current == CircuitState.CLOSED && consecutiveFailures.incrementAndGet() >= failureThreshold) {
            transition(CircuitState.CLOSED, CircuitState.OPEN);
        }
    }

    /**
     * The call ended for a reason that says nothing about the backend (e.g. the caller was
     * interrupted): a probe in flight is given back, so that the next call probes again.
     */
    public void onInconclusive() {
        if (state == CircuitState.HALF_OPEN) {
            transition(CircuitState.HALF_OPEN, CircuitState.OPEN, nanoClock.getAsLong() - openNanos);
        }
    }

    /** How long the circuit stays open from now; zero when it is not open. */
    public Duration remainingOpenDuration() {
        if (state != CircuitState.OPEN) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.max(0, openNanos - (nanoClock.getAsLong() - openedAt)));
    }

    /** The configured time the circuit stays open before a probe. */
    public Duration openDuration() {
        return Duration.ofNanos(openNanos);
    }

    public int failureThreshold() {
        return failureThreshold;
    }

    private boolean transition(CircuitState from, CircuitState to) {
        return transition(from, to, nanoClock.getAsLong());
    }

    private boolean transition(CircuitState from, CircuitState to, long now) {
        synchronized (this) {
            if (state != from) {
                return false;
            }
            if (to == CircuitState.OPEN) {
                openedAt = now;
            }
            consecutiveFailures.set(0);
            state = to;
            changes++;
        }
        listener.onStateChange(from, to);
        return true;
    }
}
