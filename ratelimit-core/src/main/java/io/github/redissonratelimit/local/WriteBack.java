package io.github.redissonratelimit.local;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * The grants made in memory, written into the shared limiter ({@link GrantWriter}) so that Redis and every instance
 * deciding with it count them: for a limiter whose decision Redis answered, at once, and this instance's next
 * decisions on it wait for that write (up to {@link #WRITE_WAIT}); for the others, at once too, then again every
 * {@value #ROUNDS_PER_INTERVAL}th of the shortest interval among them while some are left (Redis may answer the
 * write before this instance's own decisions reach it again: its circuit is still open, or no call came). The write
 * is also how the other instances learn of these grants: from the moment Redis has them, their decisions count them.
 * Nothing is kept, and nothing is sent, while no grant was made in memory.
 */
final class WriteBack {

    private static final Log logger = LogFactory.getLog(WriteBack.class);

    /** How often the unwritten grants are sent again, per interval of the shortest limit holding some. */
    static final int ROUNDS_PER_INTERVAL = 20;

    /** How long a decision waits for its limiter's write, started when Redis answered it, before it goes on. */
    static final Duration WRITE_WAIT = Duration.ofMillis(200);

    private static final long MIN_ROUND_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /**
     * A write answered later than this after it was sent may have waited on its way (Redis stalled, failing over),
     * which places its grants later than they were made (held longer): they are written again at once, and Redis
     * keeps the earlier placement, until a write is answered sooner.
     */
    static final Duration SLOW_WRITE = Duration.ofMillis(100);

    private final Map<String, UnwrittenGrants> unwritten = new ConcurrentHashMap<>();
    private final long maxLimiters;
    private final LongSupplier nanoClock;
    private final String idPrefix;
    private final AtomicLong idCounter = new AtomicLong();
    private final AtomicBoolean roundScheduled = new AtomicBoolean();
    private final LongAdder writtenPermits = new LongAdder();
    private volatile GrantWriter writer;

    WriteBack(long maxLimiters, LongSupplier nanoClock) {
        this.maxLimiters = maxLimiters;
        this.nanoClock = nanoClock;
        byte[] random = new byte[6];
        new SecureRandom().nextBytes(random);
        this.idPrefix = Base64.getUrlEncoder().encodeToString(random);
    }

    void writeTo(GrantWriter writer) {
        this.writer = writer;
    }

    /** A grant made in memory: kept until written (or out of the window), and a round to write it scheduled. */
    void granted(String limiterName, LimitSpec spec, long permits, long now) {
        if (writer == null || (unwritten.size() >= maxLimiters && !unwritten.containsKey(limiterName))) {
            return;
        }
        unwritten.compute(limiterName, (name, grants) -> {
            UnwrittenGrants kept = grants == null ? new UnwrittenGrants(spec) : grants;
            kept.add(this::nextId, permits, now);
            return kept;
        });
        scheduleRound(spec.interval().toNanos());
    }

    /**
     * Redis answered a decision on {@code limiterName}: writes its grants made in memory, and the others'. Costs one
     * map lookup when there are none.
     */
    void redisAnswered(String limiterName) {
        if (unwritten.isEmpty()) {
            return;
        }
        long now = nanoClock.getAsLong();
        UnwrittenGrants own = unwritten.get(limiterName);
        if (own != null) {
            write(limiterName, own, now, true);
        }
        writeAll(now);
    }

    /**
     * The write of {@code limiterName}'s grants started when Redis answered it, while under way (completes within
     * {@link #WRITE_WAIT}, never exceptionally); else null.
     */
    CompletableFuture<Void> awaitedWrite(String limiterName) {
        if (unwritten.isEmpty()) {
            return null;
        }
        UnwrittenGrants grants = unwritten.get(limiterName);
        CompletableFuture<Void> writing = grants == null ? null : grants.awaitedWrite();
        return writing == null || writing.isDone() ? null
                : writing.copy().completeOnTimeout(null, WRITE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    void released(String limiterName, long permits) {
        if (!unwritten.isEmpty()) {
            UnwrittenGrants grants = unwritten.get(limiterName);
            if (grants != null) {
                grants.release(permits);
            }
        }
    }

    void forget(Predicate<String> limiterNames) {
        unwritten.keySet().removeIf(limiterNames);
    }

    /** The permits of grants made in memory that Redis took. */
    long writtenPermits() {
        return writtenPermits.sum();
    }

    /** The limiters with grants made in memory that Redis does not know yet. */
    int pendingLimiters() {
        return unwritten.size();
    }

    private void writeAll(long now) {
        for (Map.Entry<String, UnwrittenGrants> entry : unwritten.entrySet()) {
            write(entry.getKey(), entry.getValue(), now, false);
        }
    }

    private void write(String limiterName, UnwrittenGrants grants, long now, boolean awaited) {
        GrantWriter target = writer;
        CompletableFuture<Void> done = new CompletableFuture<>();
        List<GrantWriter.Grant> sent = target == null ? null : grants.startWrite(now, done, awaited);
        if (sent == null) {
            unwritten.computeIfPresent(limiterName, (name, kept) -> kept.isDone(now) ? null : kept);
            return;
        }
        CompletionStage<Long> written;
        try {
            written = target.write(limiterName, grants.spec, sent);
        }
        catch (RuntimeException ex) {
            written = CompletableFuture.failedFuture(ex);
        }
        written.whenComplete((added, ex) -> {
            boolean slow = nanoClock.getAsLong() - now > SLOW_WRITE.toNanos();
            grants.writeEnded(sent, ex == null && !slow);
            if (added != null) {
                writtenPermits.add(added);
            }
            if (ex != null && logger.isDebugEnabled()) {
                logger.debug("Grants made in memory not written to Redis yet (written again later): " + ex);
            }
            done.complete(null);
            if (ex == null && slow) {
                write(limiterName, grants, nanoClock.getAsLong(), false);
            }
            unwritten.computeIfPresent(limiterName, (name, kept) -> kept.isDone(nanoClock.getAsLong()) ? null : kept);
        });
    }

    private void scheduleRound(long intervalNanos) {
        if (roundScheduled.compareAndSet(false, true)) {
            long delay = Math.max(MIN_ROUND_NANOS, intervalNanos / ROUNDS_PER_INTERVAL);
            CompletableFuture.delayedExecutor(delay, TimeUnit.NANOSECONDS).execute(this::round);
        }
    }

    private void round() {
        roundScheduled.set(false);
        long now = nanoClock.getAsLong();
        writeAll(now);
        long shortest = unwritten.values().stream().mapToLong(grants -> grants.spec.interval().toNanos()).min()
                .orElse(0);
        if (shortest > 0) {
            scheduleRound(shortest);
        }
    }

    /** 16 characters like the ids of Redis's grants: 8 random per instance, 8 of a counter (base 36). */
    private String nextId() {
        String count = Long.toString(idCounter.incrementAndGet() % 2_821_109_907_456L, 36);
        return idPrefix + "00000000".substring(count.length()) + count;
    }
}
