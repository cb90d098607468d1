package io.github.redissonratelimit.coldstart;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * How long the machine keeps a runnable thread of this JVM from running (as jHiccup measures): a daemon thread
 * parks 5 ms at a time and records by how much each wake-up came late. This JVM does little during the burst, so
 * its hiccups are the machine's (other processes on the same CPUs), not a cold JIT or the application's GC.
 */
final class HiccupMeter implements AutoCloseable {

    /** A thread kept waiting this long could not serve a decision within the 100 ms backend timeout. */
    static final long STARVED_MILLIS = 100;

    private static final long PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final AtomicLong maxNanos = new AtomicLong();
    private final AtomicLong over50 = new AtomicLong();
    private final Thread thread;
    private volatile boolean running = true;

    HiccupMeter() {
        thread = new Thread(this::measure, "hiccup-meter");
        thread.setDaemon(true);
        thread.start();
    }

    private void measure() {
        while (running) {
            long before = System.nanoTime();
            LockSupport.parkNanos(PARK_NANOS);
            long late = System.nanoTime() - before - PARK_NANOS;
            maxNanos.accumulateAndGet(late, Math::max);
            if (late > TimeUnit.MILLISECONDS.toNanos(50)) {
                over50.incrementAndGet();
            }
        }
    }

    Report report() {
        return new Report(TimeUnit.NANOSECONDS.toMillis(maxNanos.get()), over50.get());
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(1_000);
    }

    /**
     * @param maxMillis the longest a wake-up came late
     * @param over50ms how many wake-ups came more than 50 ms late
     */
    record Report(long maxMillis, long over50ms) {

        boolean starved() {
            return maxMillis >= STARVED_MILLIS;
        }

        @Override
        public String toString() {
            return "longest scheduling delay of an idle thread " + maxMillis + " ms, " + over50ms + " over 50 ms";
        }
    }
}
