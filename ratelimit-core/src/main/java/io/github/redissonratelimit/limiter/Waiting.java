package io.github.redissonratelimit.limiter;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Waiting for permits on top of single attempts: after a rejection, wait its retry-after, then try
 * again, until the permits are taken or the deadline leaves no room.
 *
 * <p>Redisson's own {@code tryAcquire(permits, timeout)} sleeps out the whole timeout when the next
 * permit comes back after it, and retries on the time until the oldest grant expires even when that
 * grant does not free enough permits. Here a rejection that cannot turn into a grant before the
 * deadline is returned at once, and each retry waits for the time the rejected acquire answered for
 * the permits actually asked for.
 */
final class Waiting {

    /** Lower bound of a pause between two attempts, so a zero retry-after under contention cannot spin. */
    private static final long MIN_PAUSE_MILLIS = 1;

    private Waiting() {
    }

    static Decision acquire(RateLimitBackend backend, String limiterName, LimitSpec spec, long permits,
            Duration maxWait) {
        long deadline = System.nanoTime() + maxWait.toNanos();
        while (true) {
            Decision decision = backend.tryAcquire(limiterName, spec, permits);
            long pause = pauseMillis(decision, deadline);
            if (pause < 0) {
                return decision;
            }
            try {
                Thread.sleep(pause);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return decision;
            }
        }
    }

    static CompletionStage<Decision> acquireAsync(RateLimitBackend backend, String limiterName, LimitSpec spec,
            long permits, Duration maxWait) {
        long deadline = System.nanoTime() + maxWait.toNanos();
        return attempt(backend, limiterName, spec, permits, deadline);
    }

    private static CompletionStage<Decision> attempt(RateLimitBackend backend, String limiterName, LimitSpec spec,
            long permits, long deadline) {
        return backend.tryAcquireAsync(limiterName, spec, permits).thenCompose(decision -> {
            long pause = pauseMillis(decision, deadline);
            if (pause < 0) {
                return CompletableFuture.completedFuture(decision);
            }
            Executor later = CompletableFuture.delayedExecutor(pause, TimeUnit.MILLISECONDS);
            return CompletableFuture.supplyAsync(() -> null, later)
                    .thenCompose(ignored -> attempt(backend, limiterName, spec, permits, deadline));
        });
    }

    /** How long to pause before the next attempt, or -1 when the decision is final. */
    private static long pauseMillis(Decision decision, long deadline) {
        if (decision.allowed()) {
            return -1;
        }
        long leftNanos = deadline - System.nanoTime();
        long pause = Math.max(MIN_PAUSE_MILLIS, decision.retryAfter().toMillis());
        return TimeUnit.MILLISECONDS.toNanos(pause) > leftNanos ? -1 : pause;
    }
}
