package io.github.redissonratelimit.interceptor;

import java.util.concurrent.Callable;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.test.Calls;

final class LimitedCalls {

    private LimitedCalls() {
    }

    /** How many of {@code calls} calls were not rejected. */
    static int allowedOf(int calls, Callable<?> call) {
        return Calls.succeeding(calls, call, RateLimitExceededException.class);
    }

    static Throwable causeOfType(Throwable ex, Class<? extends Throwable> type) {
        return Calls.causeOfType(ex, type);
    }
}
