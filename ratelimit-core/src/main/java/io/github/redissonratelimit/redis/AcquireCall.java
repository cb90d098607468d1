package io.github.redissonratelimit.redis;

import java.util.concurrent.CompletableFuture;

import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * One decision on its way to Redis: take {@code permits} from the limiter declared as {@code spec}, {@code check}
 * saying what to make of its stored config; {@code result} completes with Redis's answer.
 *
 * @param together null, or the same object for the decisions of one rate limited call that may be decided in one
 * script call (their limiters' keys share a slot)
 */
record AcquireCall(String limiterName, long permits, LimitSpec spec, AcquireScript.ConfigCheck check,
        CompletableFuture<AcquireScript.Reply> result, Object together) {

    AcquireCall withTogether(Object group) {
        return new AcquireCall(limiterName, permits, spec, check, result, group);
    }
}
