package io.github.redissonratelimit.local;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.limiter.LimiterMemory;

/**
 * The {@link io.github.redissonratelimit.annotation.BackendErrorPolicy#LOCAL local} outage policy: while Redis
 * gives no decision, this instance limits in memory to its share of each rate ({@link InstanceCount#shareOf}),
 * so that the instances together stay at the rate.
 *
 * <h2>Why the window holds across the switch</h2>
 * Every grant Redis makes to this instance is also written to the limiter's {@link LocalWindow}, so when Redis stops
 * answering, the local decisions continue the window this instance was already in, instead of starting with a full
 * bucket (which would grant up to twice the rate in the window that spans the outage). The other way round, the
 * grants made in memory are written to Redis once it answers again ({@link #writeBackTo}, see {@link WriteBack}), so
 * that every instance's later decisions count them. Until then Redis may grant what the others already granted in
 * memory, on any limiter (this instance cannot tell which), and an answer to a call sent before this instance knew of
 * the outage may come after its own grants in memory: so for one interval after this instance's last decision in
 * memory, and after another instance last granted in memory (or missed its heartbeat), every limiter keeps to the
 * local share, before Redis is asked and again when Redis grants (a grant that does not fit is given back to Redis
 * and rejected); after this instance's own decisions, not a limiter Redis answered during the outage while it gave a
 * later call no decision (another master of a cluster, see {@link OutageSpan}). An instance that took more than its
 * share from Redis before the outage would add to the others' shares: each answer of Redis (grant or rejection) also
 * says how many permits were free, and for one interval after it an instance holds at most its grants still held
 * when Redis stopped answering it (the earliest call Redis then gave no decision was sent), plus its share of the
 * free permits. Its grants that left the window between the answer and then freed permits Redis may have granted to
 * the others; of those it takes back only its part of what the bound allows above the rate (a tenth of it, split like
 * the shares: none under 10 per interval), so while each caller's calls take turns on the instances, they together
 * stay within 1.1 x the rate, and at the rate under 10. A token bucket is limited in memory like a window of its rate
 * or its burst, whichever is smaller (a bucket lets its burst out at once). What is left is the grants of one
 * heartbeat interval when another instance decides in memory longer than this one (the heartbeat tells it late), and
 * a caller whose calls went mostly to one instance: the others, which cannot know, grant it their shares (it gets
 * above the rate what it took on an instance beyond that instance's share, at most the others' shares).
 *
 * <p>Memory is bounded: at most {@code maxLimiters} limiters are kept (those unused for an interval go first, then
 * any), each holding at most the grants of one rate and about {@value LocalWindow#GRANULES} entries. A limiter dropped
 * from memory starts an outage with a full share. Recording a grant costs a map lookup and a few field writes.
 *
 * <p>One WARN when this instance starts deciding without Redis, one INFO when Redis answers again after no local
 * decision was needed for a while ({@code quietPeriod}).
 */
public final class LocalFallback implements LimiterMemory {

    private static final Log logger = LogFactory.getLog(LocalFallback.class);

    private final InstanceCount instances;
    private final LocalShares shares;
    private final LocalWindows windows;
    private final LongSupplier nanoClock;
    private final long quietNanos;
    private final AtomicBoolean active = new AtomicBoolean();
    private final LongAdder allowed = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder activations = new LongAdder();
    private volatile long lastLocalDecision;
    private volatile long lastLocalGrant;
    private volatile boolean grantedLocally;
    /** Whether any limiter was ever decided in memory here: until then no call needs its window before asking Redis. */
    private volatile boolean decidedInMemory;
    private final OutageSpan outage = new OutageSpan();
    private final WriteBack writeBack;

    public LocalFallback(InstanceCount instances, long maxLimiters) {
        this(instances, maxLimiters, Duration.ofSeconds(1), System::nanoTime);
    }

    LocalFallback(InstanceCount instances, long maxLimiters, Duration quietPeriod, LongSupplier nanoClock) {
        if (maxLimiters < 1) {
            throw new IllegalArgumentException("maxLimiters must be at least 1 but was " + maxLimiters);
        }
        this.instances = Objects.requireNonNull(instances, "instances");
        this.shares = new LocalShares(instances);
        this.nanoClock = nanoClock;
        this.quietNanos = quietPeriod.toNanos();
        this.windows = new LocalWindows(maxLimiters);
        this.writeBack = new WriteBack(maxLimiters, nanoClock);
    }

    /**
     * Writes the grants made in memory through {@code writer} once Redis answers again (see {@link WriteBack}); null
     * (the default) keeps them in memory only.
     */
    public LocalFallback writeBackTo(GrantWriter writer) {
        writeBack.writeTo(writer);
        return this;
    }

    /**
     * Redis answered this instance: a grant of {@code permits} counts against its share if Redis goes away, and what
     * Redis had left free bounds what it may take on its own for an interval (it took more than its share, or the
     * others did). While the share holds ({@link #rejectionBeforeRedis}), a grant that does not fit it is not kept:
     * the rejection returned instead is the decision, and the caller gives Redis's grant back.
     *
     * @return {@code decision}, or the rejection made in its place
     */
    public Decision answeredByRedis(String limiterName, LimitSpec spec, long permits, Decision decision) {
        long now = nanoClock.getAsLong();
        LimitState state = decision.state();
        long intervalNanos = spec.interval().toNanos();
        LocalWindow window = windows.window(limiterName, spec, now);
        long share = shareOf(spec);
        boolean toShare = decision.allowed() && holdsToShare(window, intervalNanos, now);
        long wait = window.answered(decision.allowed() ? permits : 0, share, toShare,
                LocalShares.inMemoryRate(spec), state == null ? -1 : state.available(), intervalNanos, now);
        if (outage.failing()) {
            window.answeredInOutage(outage.since(), now);
        }
        writeBack.redisAnswered(limiterName);
        if (active.get()) {
            redisAnswered();
        }
        if (wait == 0) {
            return decision;
        }
        rejected.increment();
        return Decision.reject(Duration.ofNanos(wait), new LimitState(0, Duration.ofNanos(wait))).madeLocally();
    }

    /** Redis answered (or a rejection it made was remembered): what ends local limiting once no local decision is needed any more. */
    public void redisAnswered() {
        if (active.get() && nanoClock.getAsLong() - lastLocalDecision > quietNanos && active.compareAndSet(true, false)) {
            outage.ended();
            logger.info("Redis answers rate limit decisions again; limits are shared through Redis again "
                    + "(local decisions meanwhile: " + allowed.sum() + " allowed, " + rejected.sum() + " rejected in total)");
        }
    }

    /**
     * A decision without Redis: the permits are granted when they fit in this instance's share of the window.
     * The rejection's retry-after is when they will fit; its state is what the share has left.
     */
    public Decision decide(String limiterName, LimitSpec spec, long permits) {
        return decide(limiterName, spec, permits, nanoClock.getAsLong());
    }

    /**
     * Like {@link #decide(String, LimitSpec, long)}, for a call Redis was asked at {@code askedAt} ({@link #nanoTime})
     * and gave no decision: until then Redis may have granted the permits this instance's grants freed.
     */
    Decision decide(String limiterName, LimitSpec spec, long permits, long askedAt) {
        return decide(limiterName, spec, permits, askedAt, true);
    }

    /** Like {@link #decide(String, LimitSpec, long, long)}; {@code sent}: the call went to Redis (no open circuit). */
    Decision decide(String limiterName, LimitSpec spec, long permits, long askedAt, boolean sent) {
        long now = nanoClock.getAsLong();
        lastLocalDecision = now;
        decidedInMemory = true;
        if (!active.get() && active.compareAndSet(false, true)) {
            activations.increment();
            logger.warn("Redis gives no rate limit decision; each instance limits in memory to its share of every "
                    + "rate until Redis answers again (1/" + instances.instances() + ", instances from "
                    + instances.source() + "; ratelimit.local-fallback.instances fixes it)");
        }
        LocalWindow window = windows.window(limiterName, spec, now);
        long share = shareOf(spec);
        long intervalNanos = spec.interval().toNanos();
        long wait = window.tryTake(permits, share, intervalNanos, now, outage.failed(askedAt, sent),
                shares.allowanceOf(spec));
        long left = Math.max(0, share - window.held(intervalNanos, now));
        if (wait == 0) {
            lastLocalGrant = now;
            grantedLocally = true;
            writeBack.granted(limiterName, spec, permits, now);
            allowed.increment();
            return Decision.allow(new LimitState(left, Duration.ZERO));
        }
        rejected.increment();
        return Decision.reject(Duration.ofNanos(wait), new LimitState(left, Duration.ofNanos(wait)));
    }

    /**
     * After an outage, for one interval after this instance's last decision in memory (on any limiter) or another
     * instance's last grant in memory ({@link InstanceCount#othersInMemoryAt}): the rejection the share gives before
     * Redis is asked, or null when Redis may decide (the share has room, or no decision was made in memory within
     * the interval). Redis does not know the grants made in memory until they are written back, and this instance
     * does not know on which limiters the others made them: every limiter keeps to the share meanwhile.
     */
    public Decision rejectionBeforeRedis(String limiterName, LimitSpec spec, long permits) {
        // in steady state nothing was ever decided in memory: no lookup, no clock read
        if (!decidedInMemory && !instances.othersDecidedInMemory()) {
            return null;
        }
        long now = nanoClock.getAsLong();
        long intervalNanos = spec.interval().toNanos();
        LocalWindow window = windows.get(limiterName);
        if (!holdsToShare(window, intervalNanos, now)) {
            return null;
        }
        long share = shareOf(spec);
        long wait = window != null ? window.waitFor(permits, share, intervalNanos, now)
                : permits > share ? intervalNanos : 0;
        if (wait == 0) {
            return null;
        }
        rejected.increment();
        return Decision.reject(Duration.ofNanos(wait), new LimitState(0, Duration.ofNanos(wait)));
    }

    /**
     * Whether grants made in memory within the last interval may be unknown to Redis: this instance decided in
     * memory (when it could not reach Redis, the others may not have either, unless Redis answered this limiter
     * during the outage, see {@link OutageSpan}), or another one granted in memory.
     */
    private boolean holdsToShare(LocalWindow window, long intervalNanos, long now) {
        // nanoTime values are compared by their difference only: they may be negative and wrap
        return decidedInMemory && now - lastLocalDecision < intervalNanos
                && (window == null || !window.reachedInOutage(outage))
                || instances.othersDecidedInMemory() && now - instances.othersInMemoryAt() < intervalNanos;
    }

    /** A grant of a call that did not pass was given back. */
    public void released(String limiterName, long permits) {
        LocalWindow window = windows.get(limiterName);
        if (window != null) {
            window.release(permits);
        }
        writeBack.released(limiterName, permits);
    }

    /**
     * The write of the limiter's grants made in memory that Redis's last answer on it started, while under way: the
     * limiter's next decision waits for it (at most {@link WriteBack#WRITE_WAIT}; it never fails). Null when none.
     */
    public CompletableFuture<Void> writeBeforeDeciding(String limiterName) {
        return writeBack.awaitedWrite(limiterName);
    }

    /** The permits granted in memory that Redis took since start ({@link #writeBackTo}). */
    public long getWrittenBackCount() {
        return writeBack.writtenPermits();
    }

    /** How many limiters hold grants made in memory that Redis does not know yet. */
    public int getUnwrittenLimiterCount() {
        return writeBack.pendingLimiters();
    }

    /** Forgets what this instance granted on the limiters {@code limiterNames} accepts (after a reset). */
    @Override
    public void forget(Predicate<String> limiterNames) {
        windows.forget(limiterNames);
        writeBack.forget(limiterNames);
    }

    /** This instance's clock (nanoseconds, compared by difference only). */
    long nanoTime() {
        return nanoClock.getAsLong();
    }

    /** The permits of {@code spec}'s rate this instance may grant on its own per interval. */
    public long shareOf(LimitSpec spec) {
        return shares.shareOf(spec);
    }

    /** Milliseconds since this instance last granted permits without Redis; -1 when it never did. */
    public long millisSinceLastLocalGrant() {
        return grantedLocally ? Math.max(0, (nanoClock.getAsLong() - lastLocalGrant) / 1_000_000) : -1;
    }

    /** Whether this instance is deciding without Redis now. */
    public boolean isActive() {
        return active.get();
    }

    public InstanceCount getInstances() {
        return instances;
    }

    /** Decisions made without Redis since start. */
    public long getAllowedCount() {
        return allowed.sum();
    }

    public long getRejectedCount() {
        return rejected.sum();
    }

    /** How many times this instance started deciding without Redis. */
    public long getActivationCount() {
        return activations.sum();
    }
}
