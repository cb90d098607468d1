package io.github.redissonratelimit.benchmarks;

import java.util.List;

/**
 * The law at spend time in Redis's milliseconds, the clock the sliding window counts by, from the grants the permits
 * came from ({@link ReceiptLog}): no window {@code (n, n + interval]} of ms holds more than {@code rate} spent permits.
 * A plain grant's permit is spent when Redis granted it, at the ms of its receipt. A lease granted at Redis's ms
 * {@code t} ends at {@code e = t + lease} (its receipt), and its permits are spent from {@code t} to {@code e}: they
 * came after the grant, and an instance stops spending a lease once the lease period has passed since it sent the
 * call, before Redis read {@code t} ({@link ReceiptLog} counts, for permits served during their call, those the
 * call's own timestamps place after {@code e}). So a window is charged with every permit of each lease that could have
 * been spent in it ({@code e > n} and {@code e - lease <= n + interval}) and of each plain grant inside it: never below
 * the true count, with no timestamps taken around calls, and no window above the rate is a sound 0 violations.
 */
final class ReceiptLaw {

    private ReceiptLaw() {
    }

    /**
     * @param mostInAWindow the most permits charged to any window of the interval
     * @param windowsOver the windows (one per ms) charged with more than the rate
     * @param spent every permit the logs place
     * @param unplaced permits of receipts the logs could not place
     * @param servedInCall leased permits served during their call
     * @param openAtLeaseEnd of those, the ones whose call was still open after its lease's end ms
     * @param afterLeaseEnd of those, the ones whose call started after its lease's end ms
     */
    record Result(long rate, long mostInAWindow, long windowsOver, long spent, long unplaced, long servedInCall,
            long openAtLeaseEnd, long afterLeaseEnd) {

        /** No window over the rate, every permit placed, none surely spent after its lease's end. */
        boolean holds() {
            return windowsOver == 0 && unplaced == 0 && afterLeaseEnd == 0;
        }
    }

    /** Logs of the same origin and span; windows of {@code intervalMillis}, leases of {@code leaseMillis}. */
    static Result check(List<ReceiptLog> logs, long rate, long intervalMillis, long leaseMillis) {
        int buckets = logs.get(0).buckets();
        for (ReceiptLog log : logs) {
            if (log.buckets() != buckets || log.originMillis() != logs.get(0).originMillis()) {
                throw new IllegalArgumentException("Logs of different spans");
            }
        }
        int interval = Math.toIntExact(intervalMillis);
        int lease = Math.toIntExact(leaseMillis);
        // window n (origin-relative, from -interval - lease on) is charged by a change at n and undone after:
        // a plain grant at g charges n in [g - interval, g - 1]; a lease ending at e charges [e - lease - interval, e - 1]
        int shift = interval + lease;
        long[] changes = new long[shift + buckets + 1];
        long spent = 0;
        for (ReceiptLog log : logs) {
            for (int b = 0; b < buckets; b++) {
                int granted = log.grantedAt(b);
                if (granted != 0) {
                    changes[b - interval + shift] += granted;
                    changes[b + shift] -= granted;
                    spent += granted;
                }
                int leased = log.leaseEndingAt(b);
                if (leased != 0) {
                    changes[b - lease - interval + shift] += leased;
                    changes[b + shift] -= leased;
                    spent += leased;
                }
            }
        }
        long charged = 0;
        long most = 0;
        long over = 0;
        for (long change : changes) {
            charged += change;
            most = Math.max(most, charged);
            over += charged > rate ? 1 : 0;
        }
        long unplaced = 0;
        long served = 0;
        long open = 0;
        long after = 0;
        for (ReceiptLog log : logs) {
            unplaced += log.unplaced();
            served += log.servedInCall();
            open += log.openAtLeaseEnd();
            after += log.afterLeaseEnd();
        }
        return new Result(rate, most, over, spent, unplaced, served, open, after);
    }
}
