package io.github.redissonratelimit.limiter;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Waits up to {@code maxWait} for permits: after a rejection, waits its retry-after on a timer (no thread
 * blocks), then asks the delegate again, until the permits are taken or the deadline leaves no room. A
 * rejection whose retry-after lies beyond what is left of {@code maxWait} is returned at once: waiting could
 * not help.
 *
 * <p>Redisson's own {@code tryAcquire(permits, timeout)} sleeps out the whole timeout when the next permit
 * comes back after it, and retries on the time until the oldest grant expires even when that grant does not
 * free enough permits. Here each retry waits for the time the rejected attempt answered for the permits
 * actually asked for.
 */
public final class WaitingRateLimitBackend implements DelegatingRateLimitBackend {

    /** Lower bound of a pause between two attempts, so a zero retry-after under contention cannot spin. */
    private static final long MIN_PAUSE_MILLIS = 1;

    private final RateLimitBackend delegate;
    private final long maxWaitNanos;

    public WaitingRateLimitBackend(RateLimitBackend delegate, Duration maxWait) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative but was " + maxWait);
        }
        this.maxWaitNanos = maxWait.toNanos();
    }

    @Override
    public CompletionStage<Decision> acquire(String limiterName, LimitSpec spec, long permits) {
        return attempt(limiterName, spec, permits, System.nanoTime() + maxWaitNanos);
    }

    private CompletionStage<Decision> attempt(String limiterName, LimitSpec spec, long permits, long deadline) {
        return delegate.acquire(limiterName, spec, permits).thenCompose(decision -> {
            long pause = pauseMillis(decision, deadline);
            if (pause < 0) {
                return CompletableFuture.completedFuture(decision);
            }
            Executor later = CompletableFuture.delayedExecutor(pause, TimeUnit.MILLISECONDS);
            return CompletableFuture.runAsync(() -> { }, later)
                    .thenCompose(ignored -> attempt(limiterName, spec, permits, deadline));
        });
    }

    /** How long to pause before the next attempt, or -1 when the decision is final. */
    private static long pauseMillis(Decision decision, long deadline) {
        if (decision.allowed()) {
            return -1;
        }
        long pause = Math.max(MIN_PAUSE_MILLIS, decision.retryAfter().toMillis());
        return TimeUnit.MILLISECONDS.toNanos(pause) > deadline - System.nanoTime() ? -1 : pause;
    }

    @Override
    public CompletionStage<Void> release(String limiterName, LimitSpec spec, long permits) {
        return delegate.release(limiterName, spec, permits);
    }

    @Override
    public CompletionStage<LimitState> state(String limiterName, LimitSpec spec) {
        return delegate.state(limiterName, spec);
    }

    /** The backend asked for each attempt. */
    @Override
    public RateLimitBackend getDelegate() {
        return delegate;
    }
}
