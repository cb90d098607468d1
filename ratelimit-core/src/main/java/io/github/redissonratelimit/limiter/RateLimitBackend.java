package io.github.redissonratelimit.limiter;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Takes permits from a named distributed limiter.
 *
 * <p>Only {@link #tryAcquire(String, LimitSpec, long)} must be implemented. The other operations have
 * defaults built on it: waiting retries it, the asynchronous forms run it in the calling thread (so
 * they only stop blocking when a backend overrides them), and {@link #release} and {@link #state} are
 * unsupported. {@link RedissonRateLimitBackend} implements all of them against Redis without blocking,
 * and the decorators ({@link LocalRejectionCache},
 * {@link io.github.redissonratelimit.resilience.ResilientRateLimitBackend}) pass them on.
 */
public interface RateLimitBackend {

    /**
     * Takes {@code permits} from the limiter called {@code limiterName} if they are free now.
     * The limiter is created with {@code spec} when it does not exist yet.
     */
    Decision tryAcquire(String limiterName, LimitSpec spec, long permits);

    /**
     * The same decision without blocking the caller, so that a caller can stop waiting for it (see
     * {@link io.github.redissonratelimit.resilience.ResilientRateLimitBackend}). The default runs
     * {@link #tryAcquire} in the calling thread; a backend with an asynchronous client overrides it.
     */
    default CompletionStage<Decision> tryAcquireAsync(String limiterName, LimitSpec spec, long permits) {
        try {
            return CompletableFuture.completedFuture(tryAcquire(limiterName, spec, permits));
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /**
     * Takes {@code permits}, waiting up to {@code maxWait} for them. A rejection whose
     * {@link Decision#retryAfter()} lies beyond what is left of {@code maxWait} is returned at once: waiting
     * could not help. Waits on the calling thread.
     */
    default Decision tryAcquire(String limiterName, LimitSpec spec, long permits, Duration maxWait) {
        return Waiting.acquire(this, limiterName, spec, permits, maxWait);
    }

    /**
     * {@link #tryAcquire(String, LimitSpec, long, Duration)} without blocking a thread: the retries wait on
     * a timer.
     */
    default CompletionStage<Decision> tryAcquireAsync(String limiterName, LimitSpec spec, long permits,
            Duration maxWait) {
        return Waiting.acquireAsync(this, limiterName, spec, permits, maxWait);
    }

    /**
     * Gives back {@code permits} that a call took and did not use (a later limit of the same call rejected it).
     * @throws UnsupportedOperationException unless the backend can give permits back
     */
    default void release(String limiterName, LimitSpec spec, long permits) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot give permits back: implement "
                + "release(...) to put several @RateLimit on one method");
    }

    /** {@link #release} without blocking the caller; the default runs it in the calling thread. */
    default CompletionStage<Void> releaseAsync(String limiterName, LimitSpec spec, long permits) {
        try {
            release(limiterName, spec, permits);
            return CompletableFuture.completedFuture(null);
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /**
     * Reads, without taking anything, how many permits are free now and when the next one comes back.
     * Costs a round trip to the store; used for reads that are not decisions (the actuator endpoint), and for
     * remaining-permits headers only when a decision did not carry its {@link Decision#state()}.
     * @throws UnsupportedOperationException unless the backend can tell
     */
    default LimitState state(String limiterName, LimitSpec spec) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot report available permits");
    }

    /** {@link #state} without blocking the caller; the default runs it in the calling thread. */
    default CompletionStage<LimitState> stateAsync(String limiterName, LimitSpec spec) {
        try {
            return CompletableFuture.completedFuture(state(limiterName, spec));
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }
}
