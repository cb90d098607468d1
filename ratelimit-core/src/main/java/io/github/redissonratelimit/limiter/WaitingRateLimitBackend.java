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
 *
 * <p>A caller that stops waiting (a cancelled future, an interrupted thread, a cancelled subscription) ends the
 * wait: no further attempt is made, and a grant an attempt under way makes anyway is given back.
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

    /**
     * The permits, taken within {@code maxWait}. Cancelling the returned future ends the wait: no attempt is made
     * after it, and a grant that an attempt already under way makes afterwards is given back, so that a caller who
     * is gone never holds permits.
     */
    @Override
    public CompletableFuture<Decision> acquire(String limiterName, LimitSpec spec, long permits) {
        CompletableFuture<Decision> result = new CompletableFuture<>();
        attempt(result, limiterName, spec, permits, System.nanoTime() + maxWaitNanos);
        return result;
    }

    private void attempt(CompletableFuture<Decision> result, String limiterName, LimitSpec spec, long permits,
            long deadline) {
        if (result.isDone()) {
            return; // the caller gave up while this attempt waited for its turn
        }
        CompletionStage<Decision> asked;
        try {
            asked = delegate.acquire(limiterName, spec, permits);
        }
        catch (RuntimeException ex) {
            result.completeExceptionally(ex);
            return;
        }
        answered(asked, result, limiterName, spec, permits, deadline);
    }

    /**
     * The permits, taken within {@code maxWait}, of a request whose first attempt {@code first} was already sent
     * (with the other limits of its call): waits after its rejection, and asks the delegate again, as
     * {@link #acquire} does.
     */
    public CompletableFuture<Decision> acquireAfter(CompletionStage<Decision> first, String limiterName, LimitSpec spec,
            long permits) {
        CompletableFuture<Decision> result = new CompletableFuture<>();
        answered(first, result, limiterName, spec, permits, System.nanoTime() + maxWaitNanos);
        return result;
    }

    private void answered(CompletionStage<Decision> asked, CompletableFuture<Decision> result, String limiterName,
            LimitSpec spec, long permits, long deadline) {
        asked.whenComplete((decision, ex) -> {
            if (ex != null) {
                result.completeExceptionally(Completions.unwrap(ex));
                return;
            }
            long pause = pauseMillis(decision, deadline);
            if (pause < 0) {
                if (!result.complete(decision) && decision.allowed()) {
                    giveBack(limiterName, spec, permits);
                }
                return;
            }
            if (!result.isDone()) {
                Executor later = CompletableFuture.delayedExecutor(pause, TimeUnit.MILLISECONDS);
                later.execute(() -> attempt(result, limiterName, spec, permits, deadline));
            }
        });
    }

    /** A grant made for a caller who is gone goes back at once; if that fails, it returns when it leaves the window. */
    private void giveBack(String limiterName, LimitSpec spec, long permits) {
        try {
            delegate.release(limiterName, spec, permits);
        }
        catch (RuntimeException ex) {
            // the grant leaves the window on its own
        }
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
