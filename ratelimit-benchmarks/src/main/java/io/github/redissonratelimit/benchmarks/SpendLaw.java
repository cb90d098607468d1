package io.github.redissonratelimit.benchmarks;

import java.util.List;

import io.github.redissonratelimit.test.redis.RespClient;

/**
 * The law at spend time, by Redis's clock: no window {@code (a, a + interval]} of Redis's milliseconds holds more than
 * {@code rate} spent permits, whoever spent them. Each permit of a {@link SpendLog} was spent between the start and the
 * end of its call by {@link System#nanoTime()}; {@link Offset} bounds Redis's clock against that one; so each spend
 * lies in a known span of Redis time, and a window is charged with every spend whose span touches it. That count is
 * never below the true one: 0 windows above the rate is a sound 0 violations. The spends whose span lies wholly inside
 * a window are never more than the true count: a window with more of them than the rate is surely a violation. In
 * between, the windows above the rate only by the spans' slack (the clock's uncertainty, the log's buckets, the
 * calls' own time) are not decided at this resolution.
 */
final class SpendLaw {

    private SpendLaw() {
    }

    /**
     * Redis's clock in µs minus {@code nanoTime / 1000}, somewhere between {@code low} and {@code high}: read with
     * {@code TIME} between two readings of {@code nanoTime}; measured before and after a run, their union covers
     * any drift between the two clocks during it.
     */
    record Offset(double low, double high) {

        static Offset measure(RedisProbe redis) {
            double low = Double.NEGATIVE_INFINITY;
            double high = Double.POSITIVE_INFINITY;
            try (RespClient client = new RespClient(redis.host(), redis.port())) {
                for (int i = 0; i < 200; i++) {
                    long before = System.nanoTime();
                    List<Object> time = client.list("TIME");
                    long after = System.nanoTime();
                    long micros = Long.parseLong(time.get(0).toString()) * 1_000_000
                            + Long.parseLong(time.get(1).toString());
                    low = Math.max(low, micros - after / 1_000.0);
                    high = Math.min(high, micros + 1 - before / 1_000.0);
                }
            }
            return new Offset(low, high);
        }

        Offset union(Offset other) {
            return new Offset(Math.min(low, other.low), Math.max(high, other.high));
        }

        double widthMicros() {
            return high - low;
        }
    }

    /**
     * @param mostInAWindow the most spends charged to any window of {@code interval}
     * @param windowsOver the windows (one per ms) charged with more than the rate
     * @param mostSurely the most spends wholly inside any window
     * @param windowsSurelyOver the windows with more than the rate spends wholly inside them
     * @param spent every spend of the logs
     * @param slackMicros the clock's uncertainty and a log bucket, in µs
     */
    record Result(long rate, long mostInAWindow, long windowsOver, long mostSurely, long windowsSurelyOver,
            long spent, double slackMicros) {
    }

    static Result check(List<SpendLog> logs, Offset offset, long rate, long intervalMillis) {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (SpendLog log : logs) {
            first = Math.min(first, lowMillis(log, 0, offset));
            last = Math.max(last, highMillis(log, log.buckets() - 1, offset));
        }
        int span = (int) (last - first + 1);
        long[] lows = new long[span];
        long[] highs = new long[span];
        long spent = 0;
        for (SpendLog log : logs) {
            long[] starts = log.starts();
            long[] ends = log.ends();
            for (int b = 0; b < log.buckets(); b++) {
                lows[(int) (lowMillis(log, b, offset) - first)] += starts[b];
                highs[(int) (highMillis(log, b, offset) - first)] += ends[b];
                spent += starts[b];
            }
        }
        // charged(a) = spends with low <= a + interval - spends with high <= a (those lie wholly before the window)
        long[] lowsUpTo = prefix(lows);
        long[] highsUpTo = prefix(highs);
        long most = 0;
        long over = 0;
        long mostSurely = 0;
        long surelyOver = 0;
        for (long a = first - intervalMillis; a <= last; a++) {
            long charged = upTo(lowsUpTo, a + intervalMillis - first) - upTo(highsUpTo, a - first);
            most = Math.max(most, charged);
            over += charged > rate ? 1 : 0;
            // at least those with low > a and high <= a + interval (exactly so when no call spans a whole window)
            long surely = upTo(highsUpTo, a + intervalMillis - first) - upTo(lowsUpTo, a - first);
            mostSurely = Math.max(mostSurely, surely);
            surelyOver += surely > rate ? 1 : 0;
        }
        double slack = offset.widthMicros() + SpendLog.BUCKET_NANOS / 1_000.0;
        return new Result(rate, most, over, mostSurely, surelyOver, spent, slack);
    }

    /** The earliest Redis ms a spend that started in bucket {@code b} can have. */
    private static long lowMillis(SpendLog log, int b, Offset offset) {
        double micros = (log.origin() + b * SpendLog.BUCKET_NANOS) / 1_000.0 + offset.low();
        return (long) Math.floor(micros / 1_000);
    }

    /** The latest Redis ms a spend that ended in bucket {@code b} can have. */
    private static long highMillis(SpendLog log, int b, Offset offset) {
        double micros = (log.origin() + (b + 1) * SpendLog.BUCKET_NANOS) / 1_000.0 + offset.high();
        return (long) Math.floor(micros / 1_000);
    }

    private static long[] prefix(long[] counts) {
        long[] sums = new long[counts.length];
        long sum = 0;
        for (int i = 0; i < counts.length; i++) {
            sum += counts[i];
            sums[i] = sum;
        }
        return sums;
    }

    private static long upTo(long[] sums, long index) {
        return index < 0 ? 0 : sums[(int) Math.min(index, sums.length - 1)];
    }
}
