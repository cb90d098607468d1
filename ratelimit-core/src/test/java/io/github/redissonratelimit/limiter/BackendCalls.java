package io.github.redissonratelimit.limiter;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Waits for a backend's answers, for tests that decide one call after the other: the stage's own exception
 * is thrown, unwrapped, as a blocking caller of the interceptor sees it.
 */
public final class BackendCalls {

    private BackendCalls() {
    }

    public static Decision acquire(RateLimitBackend backend, String limiterName, LimitSpec spec, long permits) {
        return await(backend.acquire(limiterName, spec, permits));
    }

    public static Decision acquire(RateLimitBackend backend, String limiterName, LimitSpec spec, long permits,
            Duration maxWait) {
        return await(new WaitingRateLimitBackend(backend).acquire(
                AcquireRequest.of(limiterName, spec, permits).waitingUpTo(maxWait)));
    }

    public static void release(RateLimitBackend backend, String limiterName, LimitSpec spec, long permits) {
        await(backend.release(AcquireRequest.of(limiterName, spec, permits), Decision.allow()));
    }

    public static LimitState state(RateLimitBackend backend, String limiterName, LimitSpec spec) {
        return await(backend.state(limiterName, spec));
    }

    public static <T> T await(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().join();
        }
        catch (CompletionException ex) {
            Throwable cause = ex.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw ex;
        }
    }
}
