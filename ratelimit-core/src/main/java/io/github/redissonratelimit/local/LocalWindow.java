package io.github.redissonratelimit.local;

/**
 * The grants this instance made on one limiter in the last interval, through Redis or on its own, as a log of
 * (time, permits) oldest first: the in-memory twin of the limiter's grants ZSET, restricted to this instance.
 *
 * <p>Only the newest grants that add up to the rate are kept (Redis cannot have granted more in one window). Grants
 * less than {@value #GRANULES}th of the interval apart share one entry, stamped with the later time (so they are held
 * at most that much longer than exact, never shorter): at most about {@value #GRANULES} entries per interval,
 * whatever the rate, and no allocation per grant.
 */
final class LocalWindow {

    /** Entries per interval at most (besides the rate's bound): what a grant's time is rounded up to. */
    static final int GRANULES = 256;

    /** How long the window is kept after its last use: the interval it was made for. */
    final long keptNanos;
    private long[] times = new long[4];
    private long[] permits = new long[4];
    private int head;
    private int size;
    private long held;
    /**
     * From this instance's last answer of Redis, for one interval: the most it may hold (its grants in the window
     * then, plus its share of the permits Redis had free), so that an instance that took more than its share from
     * Redis before an outage does not add to the others' shares.
     */
    private long cap = Long.MAX_VALUE;
    private long capUntil;
    /** Its share of the permits Redis had free then. */
    private long capFree;
    /**
     * Whether no decision was made in memory since that answer: the first one lowers the cap to the grants still held
     * when Redis stopped answering this instance, plus {@link #capFree} and an allowance. This instance's grants that
     * left the window between the answer and then freed permits Redis may have granted to the others meanwhile
     * (counted in their caps), so they are not this instance's to take again, but for the allowance (its part of what
     * the bound allows above the rate); those that left after it freed permits nobody got from Redis.
     */
    private boolean capFromAnswer;

    /** The outage (its start) in which Redis first answered on this limiter, and when; see {@link OutageSpan}. */
    private long answeredOutage;
    private long answeredInOutageAt;
    private boolean answeredInOutage;
    /** When this limiter was last decided in memory. */
    private long decidedInMemoryAt;
    private boolean decidedInMemory;

    private final long granuleNanos;
    /** When this window was last used (nanoTime); written without a lock, read by eviction only, which may see it late. */
    private long lastUse;

    LocalWindow(long keptNanos) {
        this.keptNanos = keptNanos;
        this.granuleNanos = keptNanos / GRANULES;
    }

    /**
     * Takes {@code wanted} permits when they fit in {@code share} within the interval ending {@code now}, for a call
     * Redis gave no decision, as it gave none to this instance's calls sent since {@code failingSince}; of its grants
     * that left the window between Redis's last answer and then, it takes again at most {@code allowance}.
     * @return 0 when taken, else the nanoseconds until they can fit (the interval when they never can)
     */
    synchronized long tryTake(long wanted, long share, long intervalNanos, long now, long failingSince,
            long allowance) {
        if (capFromAnswer) {
            capFromAnswer = false;
            cap = Math.min(cap, heldAfter(failingSince - intervalNanos) + capFree + allowance);
        }
        decidedInMemoryAt = now;
        decidedInMemory = true;
        long wait = waitFor(wanted, capped(share, now), intervalNanos, now);
        if (wait == intervalNanos && wanted <= share && now - capUntil < 0) {
            wait = Math.max(1, capUntil - now); // the share may fit once the cap of Redis's last answer ends
        }
        if (wait == 0) {
            add(now, wanted, share);
        }
        return wait;
    }

    /**
     * Written at most once per granule: every grant of a hot limiter calls it, from every thread, and a write per call
     * would move the field's cache line between the CPUs each time.
     */
    void used(long now) {
        long since = now - lastUse;
        if (since >= granuleNanos || since < 0) { // below 0: never used yet (nanoTime may be negative)
            lastUse = now;
        }
    }

    /** Whether no grant is held any more: unused for longer than the interval it was made for (and a granule). */
    boolean unusedFor(long now) {
        return now - lastUse > keptNanos + granuleNanos;
    }

    /**
     * An answer of Redis to this instance: {@code wanted} permits granted (0 for a rejection), leaving {@code free}
     * of {@code rate} free ({@code -1} when the backend did not tell); {@code share} is this instance's part of the
     * rate, and with {@code toShare} the grant is kept only when it fits in it.
     * @return 0 when recorded, else the nanoseconds until the grant would fit in the share (it was not kept)
     */
    synchronized long answered(long wanted, long share, boolean toShare, long rate, long free, long intervalNanos,
            long now) {
        expire(now - intervalNanos);
        if (wanted > 0 && toShare) {
            long wait = waitFor(wanted, share, intervalNanos, now);
            if (wait > 0) {
                return wait;
            }
        }
        if (wanted > 0) {
            add(now, wanted, rate);
        }
        if (free >= 0 && rate > 0) {
            // the others hold what is neither free nor this instance's: its share of the free permits is its part
            capFree = Math.min(free, rate) * share / rate;
            cap = held + capFree;
            capUntil = now + intervalNanos;
            capFromAnswer = true;
        }
        return 0;
    }

    /** Redis answered on this limiter at {@code now}, during the outage that started at {@code outageStart}. */
    synchronized void answeredInOutage(long outageStart, long now) {
        if (!answeredInOutage || answeredOutage != outageStart) {
            answeredOutage = outageStart;
            answeredInOutageAt = now;
            answeredInOutage = true;
        }
    }

    /**
     * Whether Redis answered on this limiter during {@code outage} before a later call got no decision, and it was not
     * decided in memory since the outage started.
     */
    synchronized boolean reachedInOutage(OutageSpan outage) {
        long start = outage.since();
        return answeredInOutage && answeredOutage == start && outage.failedAfter(answeredInOutageAt, start)
                && !(decidedInMemory && decidedInMemoryAt - start >= 0);
    }

    /** The share, or less for one interval after Redis's last answer: see {@link #cap}. */
    private long capped(long share, long now) {
        return now - capUntil < 0 ? Math.min(share, cap) : share;
    }

    /** The nanoseconds until {@code wanted} permits fit in the share; 0 when they fit now. */
    synchronized long waitFor(long wanted, long share, long intervalNanos, long now) {
        expire(now - intervalNanos);
        if (wanted > share) {
            return intervalNanos;
        }
        long excess = held + wanted - share;
        for (int i = 0; i < size && excess > 0; i++) {
            int at = (head + i) % times.length;
            excess -= permits[at];
            if (excess <= 0) {
                return Math.max(1, times[at] + intervalNanos - now);
            }
        }
        return 0;
    }

    /** Gives back {@code given} permits of the newest grant that holds as many (a call that did not pass). */
    synchronized void release(long given) {
        for (int i = size - 1; i >= 0; i--) {
            int at = (head + i) % times.length;
            if (permits[at] >= given) {
                permits[at] -= given;
                held -= given;
                if (permits[at] == 0) {
                    for (int j = i; j < size - 1; j++) {
                        int to = (head + j) % times.length;
                        int from = (head + j + 1) % times.length;
                        times[to] = times[from];
                        permits[to] = permits[from];
                    }
                    size--;
                }
                return;
            }
        }
    }

    /** The permits of the grants kept that were made after {@code cutoff}. */
    private long heldAfter(long cutoff) {
        long after = 0;
        for (int i = 0; i < size; i++) {
            int at = (head + i) % times.length;
            if (times[at] - cutoff > 0) {
                after += permits[at];
            }
        }
        return after;
    }

    synchronized long held(long intervalNanos, long now) {
        expire(now - intervalNanos);
        return held;
    }

    private void add(long now, long wanted, long bound) {
        if (size > 0) {
            int newest = (head + size - 1) % times.length;
            if (now - times[newest] < granuleNanos) {
                times[newest] = now;
                permits[newest] += wanted;
                held += wanted;
                trim(bound);
                return;
            }
        }
        if (size == times.length) {
            grow();
        }
        int at = (head + size) % times.length;
        times[at] = now;
        permits[at] = wanted;
        size++;
        held += wanted;
        trim(bound);
    }

    private void trim(long bound) {
        while (size > 1 && held - permits[head] >= bound) {
            dropOldest();
        }
    }

    private void expire(long cutoff) {
        while (size > 0 && times[head] - cutoff <= 0) {
            dropOldest();
        }
    }

    private void dropOldest() {
        held -= permits[head];
        head = (head + 1) % times.length;
        size--;
    }

    private void grow() {
        long[] newTimes = new long[times.length * 2];
        long[] newPermits = new long[times.length * 2];
        for (int i = 0; i < size; i++) {
            newTimes[i] = times[(head + i) % times.length];
            newPermits[i] = permits[(head + i) % times.length];
        }
        times = newTimes;
        permits = newPermits;
        head = 0;
    }
}
