package io.github.redissonratelimit.resilience;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Stops sending requests to a failing backend for a while. {@link State#CLOSED}: every call goes
 * through; {@code failureThreshold} consecutive failures open the circuit. {@link State#OPEN}: no call
 * goes through for {@code openDuration}; then the next call is let through as a probe
 * ({@link State#HALF_OPEN}) while the others keep being refused. The probe's success closes the
 * circuit, its failure opens it again for another {@code openDuration}.
 *
 * <p>Thread-safe; a call in the closed state costs two volatile reads.
 */
public final class CircuitBreaker {

    /** The states of the circuit. */
    public enum State {

        /** Calls go to the backend. */
        CLOSED,

        /** Calls are refused without touching the backend. */
        OPEN,

        /** One probe call is with the backend; other calls are refused. */
        HALF_OPEN
    }

    /** Told about every state change, outside of any lock. */
    @FunctionalInterface
    public interface StateListener {

        void onStateChange(State from, State to);
    }

    private final int failureThreshold;
    private final long openNanos;
    private final LongSupplier nanoClock;
    private final StateListener listener;
    private final AtomicInteger consecutiveFailures = new AtomicInteger();
    private volatile State state = State.CLOSED;
    private volatile long openedAt;

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

    public State state() {
        return state;
    }

    /**
     * Whether a call may go to the backend now. Once the open duration has passed, exactly one caller
     * gets {@code true} (the probe), and must then report {@link #onSuccess}, {@link #onFailure} or
     * {@link #onInconclusive}.
     */
    public boolean tryAcquirePermission() {
        State current = state;
        if (current == State.CLOSED) {
            return true;
        }
        return current == State.OPEN && nanoClock.getAsLong() - openedAt >= openNanos
                && transition(State.OPEN, State.HALF_OPEN);
    }

    /** The backend answered. */
    public void onSuccess() {
        State current = state;
        if (current == State.CLOSED) {
            if (consecutiveFailures.get() != 0) {
                consecutiveFailures.set(0);
            }
        }
        else if (current == State.HALF_OPEN) {
            transition(State.HALF_OPEN, State.CLOSED);
        }
        // OPEN: a call let through before the circuit opened; the probe decides
    }

    /** The backend failed or did not answer in time. */
    public void onFailure() {
        State current = state;
        if (current == State.HALF_OPEN) {
            transition(State.HALF_OPEN, State.OPEN);
        }
        else if (current == State.CLOSED && consecutiveFailures.incrementAndGet() >= failureThreshold) {
            transition(State.CLOSED, State.OPEN);
        }
    }

    /**
     * The call ended for a reason that says nothing about the backend (e.g. the caller was
     * interrupted): a probe in flight is given back, so that the next call probes again.
     */
    public void onInconclusive() {
        if (state == State.HALF_OPEN) {
            transition(State.HALF_OPEN, State.OPEN, nanoClock.getAsLong() - openNanos);
        }
    }

    /** How long the circuit stays open from now; zero when it is not open. */
    public Duration remainingOpenDuration() {
        if (state != State.OPEN) {
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

    private boolean transition(State from, State to) {
        return transition(from, to, nanoClock.getAsLong());
    }

    private boolean transition(State from, State to, long now) {
        synchronized (this) {
            if (state != from) {
                return false;
            }
            if (to == State.OPEN) {
                openedAt = now;
            }
            consecutiveFailures.set(0);
            state = to;
        }
        listener.onStateChange(from, to);
        return true;
    }
}
