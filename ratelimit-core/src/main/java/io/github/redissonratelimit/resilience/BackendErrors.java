package io.github.redissonratelimit.resilience;

import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;

import org.redisson.client.RedisException;

import io.github.redissonratelimit.redis.LimiterScriptException;

/**
 * Which failures mean "Redis gave no decision" (and fall under the outage policy), as opposed to
 * errors that must reach the caller unchanged: a key expression that failed, a bug, or a Lua error
 * raised by a limiter script (a misconfigured limiter fails the same way whenever it is called, so
 * hiding it behind the outage policy would only disable the limit quietly).
 *
 * <p>Redis 7 appends {@code script: <sha>, on @user_script:<line>.} to every error raised while a script
 * runs, including the refusals of a write the script makes ({@code OOM command not allowed when used memory >
 * 'maxmemory'. script: ..., on @user_script:1.}). So the error code decides first: a reply starting with one
 * of the {@linkplain #REFUSALS refusal codes} is Redis's state, not our script, wherever it was raised. The Redis
 * backend reports the errors raised while its scripts decided as {@link LimiterScriptException}s (also those of a
 * decision that shared its script call with others, which Redis answers as part of that call's reply).
 */
final class BackendErrors {

    /**
     * Error codes of Redis refusing a command for a state of its own, which passes without a change on our
     * side: out of memory under {@code noeviction}, a replica or a master that lost its replicas or its disk,
     * a node loading its data set, a cluster that is down or resharding, a busy script, a flushed script cache.
     */
    static final Set<String> REFUSALS = Set.of("OOM", "READONLY", "LOADING", "MASTERDOWN", "CLUSTERDOWN",
            "TRYAGAIN", "BUSY", "NOSCRIPT", "NOREPLICAS", "MISCONF");

    /**
     * Redisson's exceptions for those replies (by name, so that a Redisson without one of them still links);
     * Redisson may keep the code out of their message.
     */
    private static final Set<String> REFUSAL_TYPES = Set.of("org.redisson.client.RedisOutOfMemoryException",
            "org.redisson.client.RedisReadonlyException", "org.redisson.client.RedisLoadingException",
            "org.redisson.client.RedisMasterDownException", "org.redisson.client.RedisClusterDownException",
            "org.redisson.client.RedisTryAgainException", "org.redisson.client.RedisBusyException",
            "org.redisson.client.RedisNoScriptException", "org.redisson.client.RedisNoReplicasException");

    private BackendErrors() {
    }

    /**
     * Connection failures, Redis and Redisson timeouts, Redis refusing a command ({@code OOM}, {@code READONLY},
     * {@code LOADING}, {@code MASTERDOWN}, {@code CLUSTERDOWN}, {@code TRYAGAIN}, {@code BUSY}, {@code NOSCRIPT},
     * {@code NOREPLICAS}, {@code MISCONF}, also when raised inside a script), any other Redis error not raised by
     * a script, a shut down client, and cancellation.
     */
    static boolean isBackendError(Throwable error) {
        if (error instanceof TimeoutException || error instanceof CancellationException) {
            return true;
        }
        if (error instanceof RedisException redisError) {
            return isRefusal(redisError) || !isScriptError(redisError);
        }
        return false;
    }

    /** Redis refused the command for a state of its own ({@link #REFUSALS}), here or in a cause. */
    static boolean isRefusal(Throwable error) {
        Throwable current = error;
        for (int depth = 0; current != null && depth < 8; depth++, current = current.getCause()) {
            for (Class<?> type = current.getClass(); type != null; type = type.getSuperclass()) {
                if (REFUSAL_TYPES.contains(type.getName())) {
                    return true;
                }
            }
            if (current instanceof RedisException && REFUSALS.contains(errorCode(current.getMessage()))) {
                return true;
            }
            if (current.getCause() == current) {
                break;
            }
        }
        return false;
    }

    /** The error code a Redis error reply starts with ({@code OOM}, {@code ERR}, ...), or "" if none. */
    static String errorCode(String message) {
        if (message == null) {
            return "";
        }
        int start = message.startsWith("-") ? 1 : 0;
        int end = start;
        while (end < message.length() && message.charAt(end) >= 'A' && message.charAt(end) <= 'Z') {
            end++;
        }
        boolean whole = end > start && (end == message.length() || !Character.isLetterOrDigit(message.charAt(end)));
        return whole ? message.substring(start, end) : "";
    }

    /**
     * An error raised while a Lua script ran (a {@link LimiterScriptException}, or Redis's reply of another script:
     * {@code ERR user_script:1: ...}, or any reply Redis 7 tagged with {@code on @user_script:1.}) that is not a
     * {@linkplain #isRefusal refusal}: deterministic, not an outage.
     */
    static boolean isScriptError(RedisException error) {
        if (isRefusal(error)) {
            return false;
        }
        String message = error.getMessage();
        return error instanceof LimiterScriptException || message != null && message.contains("user_script");
    }
}
