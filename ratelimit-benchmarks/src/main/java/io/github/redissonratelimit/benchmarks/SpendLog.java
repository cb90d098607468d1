package io.github.redissonratelimit.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.IntBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * When the permits of a run were spent, as two histograms per caller thread of {@link System#nanoTime()} (the same
 * clock for every JVM of this machine) in buckets of {@value #BUCKET_NANOS} ns from a common origin: the start of each
 * allowed decision's call and its end, between which it was spent. Kept in a file mapped in memory, so that what a
 * JVM killed with {@code kill -9} recorded before its end is still there for {@link SpendLaw}.
 */
final class SpendLog implements AutoCloseable {

    static final long BUCKET_NANOS = 20_000;

    private final FileChannel channel;
    private final IntBuffer counts;
    private final long origin;
    private final int buckets;
    private final int threads;

    private SpendLog(FileChannel channel, IntBuffer counts, long origin, int buckets, int threads) {
        this.channel = channel;
        this.counts = counts;
        this.origin = origin;
        this.buckets = buckets;
        this.threads = threads;
    }

    /** A new log at {@code file} for {@code threads} callers over {@code span} nanoseconds from {@code origin}. */
    static SpendLog create(Path file, long origin, long span, int threads) {
        return map(file, origin, (int) (span / BUCKET_NANOS) + 1, threads, true);
    }

    /** The log another JVM wrote at {@code file}. */
    static SpendLog open(Path file, long origin, long span, int threads) {
        return map(file, origin, (int) (span / BUCKET_NANOS) + 1, threads, false);
    }

    private static SpendLog map(Path file, long origin, int buckets, int threads, boolean create) {
        try {
            FileChannel channel = create
                    ? FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                            StandardOpenOption.READ, StandardOpenOption.WRITE)
                    : FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
            MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, 8L * buckets * threads);
            return new SpendLog(channel, mapped.asIntBuffer(), origin, buckets, threads);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** A permit spent by caller {@code thread} between {@code startNanos} and {@code endNanos}. */
    void spent(int thread, long startNanos, long endNanos) {
        int base = 2 * buckets * thread;
        bump(base + bucket(startNanos));
        bump(base + buckets + bucket(endNanos));
    }

    private void bump(int index) {
        counts.put(index, counts.get(index) + 1); // one writer per thread's slice
    }

    private int bucket(long nanos) {
        long bucket = (nanos - origin) / BUCKET_NANOS;
        if (bucket < 0 || bucket >= buckets) {
            throw new IllegalStateException("A spend outside the log's span: " + (nanos - origin) + " ns");
        }
        return (int) bucket;
    }

    int buckets() {
        return buckets;
    }

    long origin() {
        return origin;
    }

    /** Spends that started in each bucket, over every thread. */
    long[] starts() {
        return sum(0);
    }

    /** Spends that ended in each bucket, over every thread. */
    long[] ends() {
        return sum(buckets);
    }

    private long[] sum(int offset) {
        long[] sum = new long[buckets];
        for (int thread = 0; thread < threads; thread++) {
            int base = 2 * buckets * thread + offset;
            for (int i = 0; i < buckets; i++) {
                sum[i] += counts.get(base + i);
            }
        }
        return sum;
    }

    @Override
    public void close() {
        try {
            channel.close();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
