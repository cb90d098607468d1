package io.github.redissonratelimit.interceptor;

import java.util.concurrent.Callable;
import java.util.stream.IntStream;

import io.github.redissonratelimit.RateLimitExceededException;

final class LimitedCalls {

    private LimitedCalls() {
    }

    /** How many of {@code calls} calls were not rejected. */
    static int allowedOf(int calls, Callable<?> call) {
        return (int) IntStream.range(0, calls).filter(i -> {
            try {
                call.call();
                return true;
            }
            catch (RateLimitExceededException ex) {
                return false;
            }
            catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        }).count();
    }

    static Throwable causeOfType(Throwable ex, Class<? extends Throwable> type) {
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return cause;
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in the causes of " + ex, ex);
    }
}
