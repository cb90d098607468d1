package io.github.redissonratelimit.resilience;

import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;

import org.redisson.client.RedisException;

/**
 * Which failures mean "Redis gave no decision" (and fall under the outage policy), as opposed to
 * errors that must reach the caller unchanged: a key expression that failed, a bug, or a Lua error
 * raised by a limiter script (a misconfigured limiter fails the same way whenever it is called, so
 * hiding it behind the outage policy would only disable the limit quietly).
 */
public final class BackendErrors {

    private BackendErrors() {
    }

    /**
     * Connection failures, Redis and Redisson timeouts, error replies such as {@code LOADING},
     * {@code CLUSTERDOWN}, {@code TRYAGAIN}, {@code MASTERDOWN}, {@code OOM}, {@code READONLY}, a
     * shut down client, and cancellation.
     */
    public static boolean isBackendError(Throwable error) {
        if (error instanceof TimeoutException || error instanceof CancellationException) {
            return true;
        }
        if (error instanceof RedisException redisError) {
            return !isScriptError(redisError);
        }
        return false;
    }

    /** An error raised while a Lua script ran ({@code ERR user_script:1: ...}): deterministic, not an outage. */
    static boolean isScriptError(RedisException error) {
        String message = error.getMessage();
        return message != null && message.contains("user_script");
    }
}
