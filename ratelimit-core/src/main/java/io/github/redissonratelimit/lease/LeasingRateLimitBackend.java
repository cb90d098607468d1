package io.github.redissonratelimit.lease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.DelegatingRateLimitBackend;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimiterMemory;
import io.github.redissonratelimit.limiter.RateLimitBackend;

/**
 * Serves the decisions of a hot limit from permits this instance leased from Redis, so that most make no network
 * call; requests of limits without a lease ({@link AcquireRequest#lease()} null) go straight to the delegate.
 *
 * <p><b>The lease.</b> When a limit's lease is empty or over, the next request goes to Redis with a
 * {@link AcquireRequest.Lease}: one script call, a grant like any other made by Redis's clock at its time {@code t},
 * which may take up to {@code k} permits instead of the request's own (callers arriving meanwhile wait for that one
 * call and then take from what it brought). This instance spends them in memory until the lease period {@code L} has
 * passed since the call was <i>sent</i> (measured with {@link System#nanoTime()}, so it stops before Redis's
 * {@code t + L} whatever its wall clock). Then, or at {@link #close()}, the permits it did not spend go back to
 * Redis by a refund of that grant.
 *
 * <p><b>The bound.</b> The sliding window stamps a lease's grant at {@code t + L} (its end, a score in the future), so
 * Redis counts it from {@code t} until {@code t + L + interval}. A permit spent at {@code s} in a window
 * {@code (a, a + interval]} comes from a grant with {@code t <= s <= a + interval} and, for a lease,
 * {@code t + L > s > a}: Redis still counts it at {@code a + interval}, where free + held = rate and free >= 0. So any
 * window of {@code interval} of spend times holds at most {@code rate} permits, whoever spent them; a refund gives
 * back only what was never spent, after the last spend. The price is under-admission: a spent permit holds its place
 * up to {@code L} longer, and a lease's unspent permits are out until its end (or, for an instance that stopped, until
 * that grant leaves the window).
 *
 * <p><b>Sizing.</b> {@code k} is what this instance spent over the last lease period (at least the request's permits,
 * at most the rate); Redis grants at most half of what it has free, so instances of equal demand share it, and when
 * half the free permits are no more than the request's own it makes a plain decision: near exhaustion every decision
 * is one call, as without leases.
 *
 * <p>Only algorithms whose {@link io.github.redissonratelimit.algorithm.LimitAlgorithm#leases()} hold leases (all
 * but in-flight; each algorithm's rule in docs/algorithms.md); a multi-limit call is served from the leases when every
 * limit has one that holds its permits, else all its limits are decided by Redis as without leases. Headers read
 * Redis's last free count plus what this instance holds, never more than the rate.
 *
 * <p><b>Resets, overrides, idle limiters.</b> A reset or an override, made on any instance, reaches this one through
 * its {@link io.github.redissonratelimit.limiter.LimiterMemories} ({@link #forget}): the leases of the limiters
 * concerned are dropped, their unspent permits not given back, and their next decision goes to Redis. A lease that
 * holds nothing and saw no request for one lease period is removed when the map has doubled since it was last
 * looked at, so the map holds fewer than twice the limiters in use then.
 */
public final class LeasingRateLimitBackend implements DelegatingRateLimitBackend, LimiterMemory, LeaseCounts,
        AutoCloseable {

    /** The fewest leases kept before idle ones are looked for. */
    private static final int SWEEP_FLOOR = 64;

    private final RateLimitBackend delegate;
    private final Map<String, LimiterLease> leases = new ConcurrentHashMap<>();
    private final AtomicInteger sweepAt = new AtomicInteger(SWEEP_FLOOR);
    private final LongAdder hits = new LongAdder();
    private final LongAdder redisCalls = new LongAdder();
    private final LeaseCalls calls = new LeaseCalls() {

        @Override
        public RateLimitBackend delegate() {
            return delegate;
        }

        @Override
        public CompletionStage<Decision> again(AcquireRequest request) {
            return acquire(request);
        }

        @Override
        public CompletionStage<Void> giveBack(String limiterName, LimitSpec spec, LimiterLease.Unspent unspent) {
            return refund(limiterName, spec, unspent);
        }

        @Override
        public void hit() {
            hits.increment();
        }

        @Override
        public void redisCall() {
            redisCalls.increment();
        }
    };

    public LeasingRateLimitBackend(RateLimitBackend delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public CompletionStage<Decision> acquire(AcquireRequest request) {
        LimiterLease lease = leaseOf(request);
        return lease == null ? delegate.acquire(request.withLease(null)) : lease.acquire(request);
    }

    /** From the leases when each limit's holds its permits now, else every limit by the delegate as one batch. */
    @Override
    public List<CompletionStage<Decision>> acquireAll(List<AcquireRequest> requests) {
        if (requests.size() == 1) {
            return List.of(acquire(requests.get(0)));
        }
        if (requests.stream().allMatch(request -> request.lease() == null)) {
            return delegate.acquireAll(requests);
        }
        List<Decision> taken = new ArrayList<>(requests.size());
        List<LimiterLease> takenFrom = new ArrayList<>(requests.size());
        for (AcquireRequest request : requests) {
            LimiterLease lease = leaseOf(request);
            Decision decision = lease == null ? null : lease.take(request.permits());
            if (decision == null) {
                for (int i = 0; i < taken.size(); i++) {
                    takenFrom.get(i).putBack(requests.get(i).permits(), taken.get(i).receipt());
                }
                redisCalls.increment();
                return delegate.acquireAll(requests.stream().map(each -> each.withLease(null)).toList());
            }
            taken.add(decision);
            takenFrom.add(lease);
        }
        hits.increment();
        return taken.stream().<CompletionStage<Decision>>map(CompletableFuture::completedFuture).toList();
    }

    /**
     * A grant served from a lease goes back into it while it lasts (no call), else to Redis by the lease's receipt;
     * any other grant to the delegate.
     */
    @Override
    public CompletionStage<Void> release(AcquireRequest request, Decision granted) {
        String receipt = granted == null ? null : granted.receipt();
        LimiterLease lease = request.lease() == null ? null : leases.get(request.limiterName());
        if (receipt != null && lease != null && lease.putBack(request.permits(), receipt)) {
            return CompletableFuture.completedFuture(null);
        }
        return delegate.release(request.withLease(null), granted);
    }

    /** Decisions served from a lease in memory since this backend was made. */
    @Override
    public long leaseHits() {
        return hits.sum();
    }

    /** Calls to the delegate for decisions of leased limits (each a new lease or a plain decision). */
    @Override
    public long redisCalls() {
        return redisCalls.sum();
    }

    @Override
    public Holding holding(String limiterName) {
        LimiterLease lease = leases.get(limiterName);
        return lease == null ? null : lease.holding();
    }

    /**
     * Drops the leases of the limiters a reset deleted or an override changed (registered with the instance's
     * {@link io.github.redissonratelimit.limiter.LimiterMemories}): their next decision goes to Redis. Their unspent
     * permits are not given back: after a reset the lease's grant is gone with the keys, and a refund could only find
     * a newer lease that happened to end in the same millisecond and free permits its holder still spends; after an
     * override they stay counted until one interval after the lease's end (under-admission only, never more).
     */
    @Override
    public void forget(Predicate<String> limiterNames) {
        leases.entrySet().removeIf(entry -> limiterNames.test(entry.getKey()) && entry.getValue().drop());
    }

    /** Ends every lease: their unspent permits go back to Redis (waiting for the refunds up to one second). */
    @Override
    public void close() {
        List<CompletableFuture<Void>> refunds = new ArrayList<>();
        leases.forEach((name, lease) -> {
            LimiterLease.Unspent unspent = lease.endNow();
            if (unspent != null) {
                refunds.add(refund(name, lease.spec(), unspent));
            }
        });
        try {
            CompletableFuture.allOf(refunds.toArray(CompletableFuture[]::new)).get(1, TimeUnit.SECONDS);
        }
        catch (Exception ex) {
            // what is not given back leaves the window on its own, one interval after the lease's end
            if (ex instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public RateLimitBackend getDelegate() {
        return delegate;
    }

    /** The request's lease, or null when its limit has none or another spec holds the limiter's lease. */
    private LimiterLease leaseOf(AcquireRequest request) {
        if (request.lease() == null || !request.spec().algorithm().leases()) {
            return null;
        }
        LimiterLease lease = leases.get(request.limiterName());
        if (lease == null) {
            lease = leases.computeIfAbsent(request.limiterName(),
                    name -> new LimiterLease(name, request.spec(), request.lease().period(), calls));
            sweepWhenGrown();
        }
        return lease.serves(request) ? lease : null;
    }

    /**
     * Removes the idle leases ({@link LimiterLease#retireIfIdle}) once the map has doubled since the last look, so
     * it holds fewer than twice the limiters that were in use at that look (or {@value #SWEEP_FLOOR}): a limit keyed
     * per caller cannot grow it without end, and a look costs one pass over the map per doubling.
     */
    private void sweepWhenGrown() {
        int at = sweepAt.get();
        if (leases.size() < at || !sweepAt.compareAndSet(at, Integer.MAX_VALUE)) {
            return;
        }
        long now = System.nanoTime();
        leases.values().removeIf(lease -> lease.retireIfIdle(now));
        sweepAt.set(Math.max(SWEEP_FLOOR, 2 * leases.size()));
    }

    @Override
    public int leasedLimiters() {
        return leases.size();
    }

    private CompletableFuture<Void> refund(String limiterName, LimitSpec spec, LimiterLease.Unspent unspent) {
        if (unspent == null) {
            return CompletableFuture.completedFuture(null);
        }
        try {
            return delegate.release(AcquireRequest.of(limiterName, spec, unspent.permits()),
                    new Decision(true, Duration.ZERO, null, false, unspent.receipt())).toCompletableFuture()
                    .exceptionally(ex -> null); // not given back: leaves the window one interval after the lease's end
        }
        catch (RuntimeException ex) {
            return CompletableFuture.completedFuture(null);
        }
    }
}
