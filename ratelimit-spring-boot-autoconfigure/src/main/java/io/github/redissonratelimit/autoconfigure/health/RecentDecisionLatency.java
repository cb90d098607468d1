package io.github.redissonratelimit.autoconfigure.health;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.outcome.RateLimitOutcome;

/**
 * The latency of the most recent rate limit decisions, for the health indicator: a listener that keeps the last
 * {@code capacity} decisions' {@link RateLimitOutcome#latency() latency} in a ring, and reports the percentiles of
 * those no older than {@code maxAge}. Recording is lock-free and allocation-free; a snapshot copies the ring.
 */
public final class RecentDecisionLatency implements RateLimitListener {

    private final AtomicLongArray latencies;
    private final AtomicLongArray times;
    private final AtomicLong next = new AtomicLong();
    private final long maxAgeNanos;
    private final LongSupplier nanoClock;

    /**
     * @param capacity the most decisions kept
     * @param maxAge how old a decision may be and still count
     */
    public RecentDecisionLatency(int capacity, Duration maxAge) {
        this(capacity, maxAge, System::nanoTime);
    }

    RecentDecisionLatency(int capacity, Duration maxAge, LongSupplier nanoClock) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1 but was " + capacity);
        }
        this.latencies = new AtomicLongArray(capacity);
        this.times = new AtomicLongArray(capacity);
        this.maxAgeNanos = maxAge.toNanos();
        this.nanoClock = nanoClock;
    }

    @Override
    public void onOutcomes(List<RateLimitOutcome> outcomes) {
        long now = nanoClock.getAsLong();
        for (RateLimitOutcome outcome : outcomes) {
            record(outcome.latency(), now);
        }
    }

    void record(Duration latency, long now) {
        int slot = (int) (next.getAndIncrement() % latencies.length());
        // a reader racing this write may pair a new time with an old latency: one sample, harmless
        latencies.set(slot, latency.toNanos());
        times.set(slot, now);
    }

    /** The decisions of the window, or an empty snapshot when there were none. */
    public Snapshot snapshot() {
        long now = nanoClock.getAsLong();
        int filled = (int) Math.min(next.get(), latencies.length());
        long[] recent = new long[filled];
        int count = 0;
        for (int i = 0; i < filled; i++) {
            if (now - times.get(i) <= maxAgeNanos) {
                recent[count++] = latencies.get(i);
            }
        }
        long[] sorted = Arrays.copyOf(recent, count);
        Arrays.sort(sorted);
        return new Snapshot(count, percentile(sorted, 50), percentile(sorted, 99), count == 0 ? null
                : Duration.ofNanos(sorted[count - 1]));
    }

    /** Nearest rank: the smallest value that {@code percent}% of the values do not exceed. */
    private static Duration percentile(long[] sorted, int percent) {
        if (sorted.length == 0) {
            return null;
        }
        int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
        return Duration.ofNanos(sorted[Math.max(0, rank - 1)]);
    }

    public int capacity() {
        return latencies.length();
    }

    public Duration maxAge() {
        return Duration.ofNanos(maxAgeNanos);
    }

    /**
     * @param decisions how many decisions the window holds
     * @param p50 the median latency; null without decisions
     * @param p99 the 99th percentile; null without decisions
     * @param max the slowest; null without decisions
     */
    public record Snapshot(int decisions, Duration p50, Duration p99, Duration max) {
    }
}
