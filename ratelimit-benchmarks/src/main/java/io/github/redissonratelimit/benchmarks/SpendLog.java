package io.github.redissonratelimit.benchmarks;

import java.nio.file.Path;
import java.time.Instant;

/**
 * When the permits of a run were spent, by the machine's wall clock ({@link #wallNanos()}: {@code CLOCK_REALTIME},
 * the clock Redis's {@code TIME} reads, to the µs), as two histograms of µs from a common origin over every caller of
 * a JVM: the start of each allowed decision's call and its end, between which it was spent. One bucket per µs, so a
 * spend's bucket is the µs Redis's clock read at it or between. Kept in a file mapped in memory, so that what a JVM
 * killed with {@code kill -9} recorded before its end is still there for {@link SpendLaw}.
 */
final class SpendLog implements AutoCloseable {

    private final MappedCounts counts;
    private final long originMicros;
    private final int buckets;

    private SpendLog(MappedCounts counts, long originMicros, int buckets) {
        this.counts = counts;
        this.originMicros = originMicros;
        this.buckets = buckets;
    }

    /** The wall clock in ns: {@code TIME} on a Redis of this machine reads it, truncated to the µs. */
    static long wallNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    static long wallMicros() {
        return wallNanos() / 1_000;
    }

    /** A new log at {@code file} for spends from {@code originMicros} of the wall clock for {@code spanMicros}. */
    static SpendLog create(Path file, long originMicros, long spanMicros) {
        return map(file, originMicros, spanMicros, true);
    }

    /** The log another JVM wrote at {@code file}. */
    static SpendLog open(Path file, long originMicros, long spanMicros) {
        return map(file, originMicros, spanMicros, false);
    }

    private static SpendLog map(Path file, long originMicros, long spanMicros, boolean create) {
        int buckets = Math.toIntExact(spanMicros + 1);
        return new SpendLog(MappedCounts.map(file, 2L * buckets, create), originMicros, buckets);
    }

    /** A permit spent between {@code startNanos} and {@code endNanos} of the wall clock; any thread. */
    void spent(long startNanos, long endNanos) {
        bump(bucket(startNanos));
        bump(buckets + bucket(endNanos));
    }

    private void bump(int index) {
        counts.add(index, 1);
    }

    private int bucket(long nanos) {
        long bucket = nanos / 1_000 - originMicros;
        if (bucket < 0 || bucket >= buckets) {
            throw new IllegalStateException("A spend outside the log's span: " + bucket + " µs from its origin");
        }
        return (int) bucket;
    }

    int buckets() {
        return buckets;
    }

    long originMicros() {
        return originMicros;
    }

    /** Spends whose call started in µs {@code bucket} from the origin. */
    int startsAt(int bucket) {
        return counts.at(bucket);
    }

    /** Spends whose call ended in µs {@code bucket} from the origin. */
    int endsAt(int bucket) {
        return counts.at(buckets + bucket);
    }

    /** Spends whose call started from {@code fromMicros} (inclusive) to {@code toMicros} (exclusive), wall clock. */
    long startedBetween(long fromMicros, long toMicros) {
        long sum = 0;
        for (long b = Math.max(0, fromMicros - originMicros); b < Math.min(buckets, toMicros - originMicros); b++) {
            sum += startsAt((int) b);
        }
        return sum;
    }

    @Override
    public void close() {
        counts.close();
    }
}
