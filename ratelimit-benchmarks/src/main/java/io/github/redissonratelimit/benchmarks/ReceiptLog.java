package io.github.redissonratelimit.benchmarks;

import java.nio.file.Path;

/**
 * The permits one JVM spent in a run, by the grant they came from, as each decision's receipt names it in Redis's
 * milliseconds: a lease's ({@code l<end>}, its end: the score Redis counts it by) or a plain grant's
 * ({@code r<µs>}, Redis's {@code TIME} when it granted). Kept per ms from a common origin in a file mapped in memory,
 * so that what a JVM killed with {@code kill -9} recorded is still there for {@link ReceiptLaw}. Also counts what no
 * receipt places (a decision made in memory by the outage policy, another algorithm's receipt), and, for leased
 * permits served during their call, those whose call started after their lease's end ms (surely spent after it) or was
 * still open then (spent at its end ms or later: the call's timestamps cannot tell).
 */
final class ReceiptLog implements AutoCloseable {

    private static final int UNPLACED = 0;
    private static final int AFTER_LEASE_END = 1;
    private static final int OPEN_AT_LEASE_END = 2;
    private static final int SERVED_IN_CALL = 3;
    private static final int COUNTERS = 4;

    private final MappedCounts counts;
    private final long originMillis;
    private final int buckets;

    private ReceiptLog(MappedCounts counts, long originMillis, int buckets) {
        this.counts = counts;
        this.originMillis = originMillis;
        this.buckets = buckets;
    }

    /** A new log at {@code file} for grants from {@code originMillis} of the wall clock for {@code spanMillis}. */
    static ReceiptLog create(Path file, long originMillis, long spanMillis) {
        return map(file, originMillis, spanMillis, true);
    }

    /**
     * The log of the run whose {@link SpendLog} is {@code spendLog} (from {@code originMicros} for {@code spanMicros}),
     * in a file beside it, new or written by another JVM: the run's span in ms, and the lease of the last spend after.
     */
    static ReceiptLog forRun(Path spendLog, long originMicros, long spanMicros, boolean create) {
        Path file = spendLog.resolveSibling(spendLog.getFileName() + ".receipts");
        return map(file, originMicros / 1_000, spanMicros / 1_000 + LeasedService.LEASE_MILLIS + 2, create);
    }

    private static ReceiptLog map(Path file, long originMillis, long spanMillis, boolean create) {
        int buckets = Math.toIntExact(spanMillis + 1);
        return new ReceiptLog(MappedCounts.map(file, COUNTERS + 2L * buckets, create), originMillis, buckets);
    }

    /**
     * {@code permits} spent from the grant of {@code receipt} (negative: given back), by a call from
     * {@code startMicros} to {@code endMicros} of the wall clock; {@code servedInCall}: answered before the call
     * returned (from a lease in memory), so spent between the two. Any thread.
     */
    void spent(String receipt, long permits, long startMicros, long endMicros, boolean servedInCall) {
        int amount = Math.toIntExact(permits);
        long number = receipt == null || receipt.length() < 2 ? -1 : parse(receipt);
        if (number < 0) {
            counts.add(UNPLACED, amount);
        }
        else if (receipt.charAt(0) == 'l') {
            counts.add(COUNTERS + bucket(number), amount);
            if (servedInCall && amount > 0) {
                counts.add(SERVED_IN_CALL, amount);
                if (startMicros / 1_000 > number) {
                    counts.add(AFTER_LEASE_END, amount);
                }
                else if (endMicros / 1_000 > number) {
                    counts.add(OPEN_AT_LEASE_END, amount);
                }
            }
        }
        else {
            counts.add(COUNTERS + buckets + bucket(number / 1_000), amount);
        }
    }

    /** The number a receipt names: a lease's end ms, or a plain grant's µs; -1 for one of another form. */
    private static long parse(String receipt) {
        char kind = receipt.charAt(0);
        if (kind != 'l' && kind != 'r') {
            return -1;
        }
        long value = 0;
        for (int i = 1; i < receipt.length(); i++) {
            char digit = receipt.charAt(i);
            if (digit < '0' || digit > '9') {
                return -1;
            }
            value = value * 10 + (digit - '0');
        }
        return value;
    }

    private int bucket(long millis) {
        long bucket = millis - originMillis;
        if (bucket < 0 || bucket >= buckets) {
            throw new IllegalStateException("A grant outside the log's span: " + bucket + " ms from its origin");
        }
        return (int) bucket;
    }

    int buckets() {
        return buckets;
    }

    long originMillis() {
        return originMillis;
    }

    /** Permits spent from leases ending in ms {@code bucket} from the origin. */
    int leaseEndingAt(int bucket) {
        return counts.at(COUNTERS + bucket);
    }

    /** Permits of plain grants Redis made in ms {@code bucket} from the origin. */
    int grantedAt(int bucket) {
        return counts.at(COUNTERS + buckets + bucket);
    }

    /** Permits no receipt places. */
    long unplaced() {
        return counts.at(UNPLACED);
    }

    /** Leased permits served during their call, which started after their lease's end ms. */
    long afterLeaseEnd() {
        return counts.at(AFTER_LEASE_END);
    }

    /** Leased permits served during their call, which was still open after their lease's end ms. */
    long openAtLeaseEnd() {
        return counts.at(OPEN_AT_LEASE_END);
    }

    /** Leased permits served during their call (from a lease in memory). */
    long servedInCall() {
        return counts.at(SERVED_IN_CALL);
    }

    @Override
    public void close() {
        counts.close();
    }
}
