package io.github.redissonratelimit.test;

import java.util.concurrent.Callable;
import java.util.stream.IntStream;

/** Counting calls in tests of limited methods. */
public final class Calls {

    private Calls() {
    }

    /**
     * Makes {@code calls} calls and counts those that did not throw {@code rejection}; any other exception
     * fails the test.
     */
    public static int succeeding(int calls, Callable<?> call, Class<? extends Throwable> rejection) {
        return (int) IntStream.range(0, calls).filter(i -> {
            try {
                call.call();
                return true;
            }
            catch (Exception ex) {
                if (rejection.isInstance(ex)) {
                    return false;
                }
                throw new IllegalStateException("call " + i + " failed with something else than "
                        + rejection.getSimpleName(), ex);
            }
        }).count();
    }

    /** The first cause of {@code ex} (itself included) of {@code type}; fails the test when there is none. */
    public static <T extends Throwable> T causeOfType(Throwable ex, Class<T> type) {
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return type.cast(cause);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in the causes of " + ex, ex);
    }
}
