package io.github.redissonratelimit.benchmarks;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;

/**
 * Calls under an in-flight limit, called through their Spring proxy, beside an unlimited and a rate-limited twin
 * ({@link InFlightScenario}). Each holds the calling thread for the nanoseconds it is given and returns how long it
 * held it; {@link #lastCall} tells when the last call on the thread entered and left the method, so that a caller
 * can tell the limit's part of its latency before the call from its part after.
 */
public class InFlightService {

    /** The most calls in flight at once of {@link #export} and of {@link #longCall}, across every instance. */
    static final int LIMIT = 8;

    /** The limiters' logical keys, which the trace of each run looks for in the scripts' keys. */
    static final String EXPORT_KEY = "in-flight:export";
    static final String LONG_KEY = "in-flight:long";

    /** The lease period of {@link #longCall}: renewed every 500 ms while a call runs. */
    static final long LONG_LEASE_MILLIS = 1_500;

    // every application context of a run has its own bean: the calls inside a method are counted across them
    private static final AtomicInteger inside = new AtomicInteger();
    private static final AtomicInteger mostInside = new AtomicInteger();
    private static final ThreadLocal<long[]> lastCall = ThreadLocal.withInitial(() -> new long[2]);

    @RateLimit(key = "'" + EXPORT_KEY + "'", rate = LIMIT, algorithm = RateLimitAlgorithm.IN_FLIGHT)
    public long export(long holdNanos) {
        mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
        try {
            return hold(holdNanos);
        }
        finally {
            inside.decrementAndGet();
        }
    }

    @RateLimit(key = "'" + LONG_KEY + "'", rate = LIMIT, window = LONG_LEASE_MILLIS + "ms",
            algorithm = RateLimitAlgorithm.IN_FLIGHT)
    public long longCall(long holdNanos) {
        return hold(holdNanos);
    }

    /** One limiter per caller, which a caller alone never fills: every call is admitted. */
    @RateLimit(key = "'in-flight:latency:' + #caller", rate = LIMIT, algorithm = RateLimitAlgorithm.IN_FLIGHT)
    public long inFlight(int caller, long holdNanos) {
        return hold(holdNanos);
    }

    @RateLimit(key = "'sliding:latency:' + #caller", rate = Limits.GENEROUS_RATE, window = "1s")
    public long slidingWindow(int caller, long holdNanos) {
        return hold(holdNanos);
    }

    public long unlimited(int caller, long holdNanos) {
        return hold(holdNanos);
    }

    /** The most calls inside {@link #export} at once, across every instance, since the last call of this. */
    static int takeMostInside() {
        return mostInside.getAndSet(inside.get());
    }

    /** When the last call on this thread entered and left the method ({@link System#nanoTime()}). */
    static long[] lastCall() {
        return lastCall.get();
    }

    private static long hold(long holdNanos) {
        long start = System.nanoTime();
        long left = holdNanos;
        while (left > 0) {
            LockSupport.parkNanos(left);
            left = holdNanos - (System.nanoTime() - start);
        }
        long end = System.nanoTime();
        long[] call = lastCall.get();
        call[0] = start;
        call[1] = end;
        return end - start;
    }
}
