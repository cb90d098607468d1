package io.github.redissonratelimit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.test.redis.CommandStats;

/**
 * One user floods an {@code @RateLimit(rate = FLOOD_RATE, window = "1s")} method at ten times its rate:
 * calls are paced on a fixed schedule over a few threads (an open loop), so both variants get the same
 * offered load whatever a call costs.
 */
final class FloodScenario {

    static final int FACTOR = 10;
    private static final int THREADS = 4;

    private FloodScenario() {
    }

    static Result run(AnnotatedService service, String user, Duration duration, RedisProbe redis)
            throws InterruptedException {
        try {
            service.flood(user); // the limiter's config is written on first sight: not part of the flood
        }
        catch (RateLimitExceededException ex) {
            throw new IllegalStateException("The flood key " + user + " was used before", ex);
        }
        long callsPerSecond = Limits.FLOOD_RATE * FACTOR;
        long gapNanos = TimeUnit.SECONDS.toNanos(1) * THREADS / callsPerSecond;
        CommandStats before = redis.commandStats();
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10);
        long end = start + duration.toNanos();
        Flooder[] flooders = new Flooder[THREADS];
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Flooder flooder = new Flooder(service, user, start + gapNanos * t / THREADS, end, gapNanos);
            flooders[t] = flooder;
            Thread thread = new Thread(flooder, "flood-" + t);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        CommandStats delta = redis.commandStats().minus(before);
        long allowed = 0;
        int rejected = 0;
        for (Flooder flooder : flooders) {
            allowed += flooder.allowed;
            rejected += flooder.rejectionCount;
        }
        long[] rejections = new long[rejected];
        int offset = 0;
        for (Flooder flooder : flooders) {
            System.arraycopy(flooder.rejectionLatencies, 0, rejections, offset, flooder.rejectionCount);
            offset += flooder.rejectionCount;
        }
        Arrays.sort(rejections);
        return new Result(duration, allowed, rejected, delta.calls("evalsha") + delta.calls("eval"),
                delta.totalExcept("info", "ping"), rejections);
    }

    /**
     * @param scriptCalls script calls (EVAL/EVALSHA), i.e. round trips, during the flood
     * @param allCommands every command Redis ran during the flood, including those run inside scripts
     */
    record Result(Duration duration, long allowed, long rejected, long scriptCalls, long allCommands,
            long[] sortedRejectionNanos) {

        /** Round trips made for rejected calls (all but the one acquire of each allowed call), per rejection. */
        double roundTripsPerRejection() {
            return rejected == 0 ? Double.NaN : (double) (scriptCalls - allowed) / rejected;
        }

        /** Every command Redis ran in the flood, allowed calls' included, per rejection: an upper bound. */
        double commandsPerRejection() {
            return rejected == 0 ? Double.NaN : (double) allCommands / rejected;
        }

        double rejectionMicros(double quantile) {
            return Stats.quantile(sortedRejectionNanos, quantile) / 1_000.0;
        }

        double offeredPerSecond() {
            return (allowed + rejected) / (duration.toNanos() / 1e9);
        }
    }

    private static final class Flooder implements Runnable {

        private final AnnotatedService service;
        private final String user;
        private final long first;
        private final long end;
        private final long gap;
        long allowed;
        long[] rejectionLatencies = new long[4_096];
        int rejectionCount;

        Flooder(AnnotatedService service, String user, long first, long end, long gap) {
            this.service = service;
            this.user = user;
            this.first = first;
            this.end = end;
            this.gap = gap;
        }

        @Override
        public void run() {
            for (long slot = first; slot < end; slot += gap) {
                LockSupport.parkNanos(slot - System.nanoTime());
                long started = System.nanoTime();
                try {
                    service.flood(user);
                    allowed++;
                }
                catch (RateLimitExceededException ex) {
                    long took = System.nanoTime() - started;
                    if (rejectionCount == rejectionLatencies.length) {
                        rejectionLatencies = Arrays.copyOf(rejectionLatencies, rejectionCount * 2);
                    }
                    rejectionLatencies[rejectionCount++] = took;
                }
            }
        }
    }
}
