package io.github.redissonratelimit.limiter;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** Takes permits from a named distributed limiter. */
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
}
