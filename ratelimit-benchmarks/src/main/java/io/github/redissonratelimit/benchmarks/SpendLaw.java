package io.github.redissonratelimit.benchmarks;

import java.util.List;

import io.github.redissonratelimit.test.redis.RespClient;

/**
 * The law at spend time, by Redis's clock: no window {@code (a, a + interval]} of Redis's µs holds more than
 * {@code rate} spent permits, whoever spent them. Redis's clock is {@code gettimeofday}, the machine's wall clock,
 * which the {@link SpendLog}s read too (Redis runs on this machine; {@link #requireSameClock} checks it): so a spend
 * logged between the starts of µs {@code low} and {@code high} was read by Redis's clock as a µs in
 * {@code [low, high]} (unless the clock is set back during the call): no mapping between two clocks, so the check is
 * exact to the µs but for the calls' own time. Every window (one per µs) is charged with every spend whose span touches it: never
 * below the true count, so 0 windows above the rate is a sound 0 violations. The spends whose span lies wholly inside
 * a window are never more than the true count: a window with more of them than the rate is surely a violation. In
 * between, a window is above the rate only by the calls that straddle its edges.
 */
final class SpendLaw {

    private static final int CLOCK_SAMPLES = 200;

    private SpendLaw() {
    }

    /**
     * Fails unless Redis's {@code TIME} reads this JVM's wall clock: each of {@value #CLOCK_SAMPLES} readings must lie
     * between the wall clock's µs read before and after it.
     */
    static void requireSameClock(RedisProbe redis) {
        try (RespClient client = new RespClient(redis.host(), redis.port())) {
            for (int i = 0; i < CLOCK_SAMPLES; i++) {
                long before = SpendLog.wallMicros();
                List<Object> time = client.list("TIME");
                long after = SpendLog.wallMicros();
                long micros = Long.parseLong(time.get(0).toString()) * 1_000_000
                        + Long.parseLong(time.get(1).toString());
                if (micros < before || micros > after) {
                    throw new IllegalStateException("Redis's TIME read " + micros + " µs between this JVM's wall "
                            + "clock's " + before + " and " + after + ": not the same clock, the law cannot be checked");
                }
            }
        }
    }

    /**
     * @param mostInAWindow the most spends charged to any window of {@code interval}
     * @param windowsOver the windows (one per µs) charged with more than the rate
     * @param mostSurely the most spends wholly inside any window
     * @param windowsSurelyOver the windows with more than the rate spends wholly inside them
     * @param spent every spend of the logs
     */
    record Result(long rate, long mostInAWindow, long windowsOver, long mostSurely, long windowsSurelyOver,
            long spent) {
    }

    /** Logs of the same origin and span, windows of {@code intervalMicros}. */
    static Result check(List<SpendLog> logs, long rate, long intervalMicros) {
        int buckets = logs.get(0).buckets();
        for (SpendLog log : logs) {
            if (log.buckets() != buckets || log.originMicros() != logs.get(0).originMicros()) {
                throw new IllegalArgumentException("Logs of different spans");
            }
        }
        int interval = Math.toIntExact(intervalMicros);
        // for the window (a, a + interval]: started up to its end, ended up to its end, started / ended up to a
        long startedToEnd = 0;
        long endedToEnd = 0;
        long startedToA = 0;
        long endedToA = 0;
        long most = 0;
        long over = 0;
        long mostSurely = 0;
        long surelyOver = 0;
        for (long a = -interval; a < buckets; a++) {
            long end = a + interval;
            if (end < buckets) {
                startedToEnd += starts(logs, (int) end);
                endedToEnd += ends(logs, (int) end);
            }
            if (a >= 0) {
                startedToA += starts(logs, (int) a);
                endedToA += ends(logs, (int) a);
            }
            // touching the window: started by its end and not ended by a
            long charged = startedToEnd - endedToA;
            most = Math.max(most, charged);
            over += charged > rate ? 1 : 0;
            // at least those started after a and ended by its end (exactly so when no call spans a whole window)
            long surely = endedToEnd - startedToA;
            mostSurely = Math.max(mostSurely, surely);
            surelyOver += surely > rate ? 1 : 0;
        }
        return new Result(rate, most, over, mostSurely, surelyOver, startedToEnd);
    }

    private static long starts(List<SpendLog> logs, int bucket) {
        long sum = 0;
        for (SpendLog log : logs) {
            sum += log.startsAt(bucket);
        }
        return sum;
    }

    private static long ends(List<SpendLog> logs, int bucket) {
        long sum = 0;
        for (SpendLog log : logs) {
            sum += log.endsAt(bucket);
        }
        return sum;
    }
}
