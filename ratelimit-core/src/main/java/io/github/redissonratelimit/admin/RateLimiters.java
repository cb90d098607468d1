package io.github.redissonratelimit.admin;

import java.time.Duration;
import java.util.Map;

import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.operation.LimitOverride;

/**
 * Operates the declared limits while the application runs, for operators (the {@code ratelimits} actuator
 * endpoint) and code: read a caller's state, reset a caller or every caller of a limit, and change a limit for
 * every instance without a redeploy.
 *
 * <p>A limit is named as in {@code @RateLimit(name = ...)} (or by its display name, {@code OrderController.submit},
 * when it has none); a key is the logical key its key expression gives ({@code order:submit:42}), or {@code null}
 * for a limit without one. The key of a limit keyed outside a method (a URL route) is the value its key gives
 * ({@code 127.0.0.1}), which the limit's {@linkplain io.github.redissonratelimit.operation.CallerKey scope} turns
 * into the logical key ({@code api:127.0.0.1}). Every write is logged at INFO by
 * {@code io.github.redissonratelimit.admin.RateLimiters} with what changed and {@linkplain #by(String) by whom},
 * and reaches every instance: each drops what it remembers of the limiters concerned, or applies the override,
 * before the write returns (waiting at most one second for the others to confirm). The methods block until Redis
 * has answered.
 *
 * @see io.github.redissonratelimit.redis.admin.RedissonRateLimiters
 */
public interface RateLimiters {

    /**
     * What the limiter of {@code key} holds now, under the limit's current spec (override included); takes nothing.
     * @throws IllegalArgumentException when no limit has that name, or it needs a key and none was given
     */
    LimitState state(String name, String key);

    /**
     * Resets one caller: deletes its limiter's keys in Redis (its next call starts with a full bucket) and makes
     * every instance forget its cached rejection of it.
     * @param key the logical key, or {@code null} for a limit without a key expression
     * @throws IllegalArgumentException when no limit has that name, or it needs a key and none was given
     */
    ResetResult reset(String name, String key);

    /**
     * Resets every caller of a limit: deletes the keys of every limiter whose logical key starts with the
     * literal beginning of the limit's key expression ({@code 'order:submit:' + #userId} gives
     * {@code order:submit:}), found with {@code SCAN} on every master, except those of other declared limits with
     * a longer beginning; and makes every instance forget them. A URL route's logical keys begin with its name
     * ({@code api:}) unless it is keyed in the shared scope, where they begin with its key's literal beginning.
     * @throws IllegalArgumentException when no limit has that name, or its keys have no literal beginning (then
     * they cannot be told apart from other limits': reset callers one by one)
     */
    ResetResult reset(String name);

    /** Resets every limiter under the key prefix, on Redis and on every instance (for tests that start clean). */
    ResetResult resetAll();

    /**
     * Overrides a limit for every instance, now and for instances started later, until
     * {@link #clearOverride(String)}: {@code rate} permits per {@code interval}, and {@code permits} per call
     * unless {@code null}. Stored in Redis; applied to each limiter at its next decision under
     * {@code ratelimit.on-config-change} ({@code update}, the default, keeps the window's grants, so a lowered
     * limit first uses up what was granted).
     * @return the override in force
     * @throws IllegalArgumentException when no limit has that name, or the values are not valid for it
     */
    LimitOverride override(String name, long rate, Duration interval, Long permits);

    /**
     * Removes the override of a limit: every instance goes back to its configuration.
     * @return whether there was one
     */
    boolean clearOverride(String name);

    /** Removes every override. */
    void clearOverrides();

    /** The overrides in force on this instance, by limit name. */
    Map<String, LimitOverride> overrides();

    /** The same operations, logged and stored as done by {@code actor} (e.g. the principal of a request). */
    RateLimiters by(String actor);

    /**
     * What a reset did.
     * @param name the limit
     * @param key the logical key reset, or {@code null} for every caller of the limit (or of every limit)
     * @param deletedKeys Redis keys deleted
     * @param instancesConfirmed instances that confirmed within one second that they forgot the limiters
     */
    record ResetResult(String name, String key, long deletedKeys, int instancesConfirmed) {
    }
}
