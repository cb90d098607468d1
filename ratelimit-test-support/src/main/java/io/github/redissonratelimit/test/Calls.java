package io.github.redissonratelimit.test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicIntegerArray;
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

    /** A call for key number {@code key}; {@code true} when it was granted. */
    @FunctionalInterface
    public interface KeyedCall {

        boolean granted(int key) throws Exception;
    }

    /**
     * Runs {@code threads} threads at once that make {@code callsPerThread} calls each, round robin over
     * {@code keys} keys (thread t starts at key t), and returns how many calls each key granted. Any
     * exception fails the test.
     */
    public static int[] grantedPerKey(int threads, int callsPerThread, int keys, KeyedCall call) throws Exception {
        AtomicIntegerArray granted = new AtomicIntegerArray(keys);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> callers = new ArrayList<>();
            for (int thread = 0; thread < threads; thread++) {
                int first = thread;
                callers.add(pool.submit(() -> {
                    for (int i = first; i < first + callsPerThread; i++) {
                        if (call.granted(i % keys)) {
                            granted.incrementAndGet(i % keys);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> caller : callers) {
                caller.get();
            }
        }
        finally {
            pool.shutdownNow();
        }
        return IntStream.range(0, keys).map(granted::get).toArray();
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
