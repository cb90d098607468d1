package io.github.redissonratelimit.lease;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;

/**
 * This instance's lease on one limiter: the permits it holds, until when it may spend them, and the one call to
 * Redis under way for the next lease. Every field is guarded by the object's lock, which no network call holds.
 *
 * <p>What it gives back (a lease's unspent permits, a plain grant asked ahead) is in Redis before its next call to
 * Redis is sent: sent at once, a give-back could reach Redis after that call (another connection, a slower path),
 * which would then find too few permits free, and be refused, for want of permits this instance had given back.
 */
final class LimiterLease {

    /** The shortest span a demand is measured over, as a fraction of the lease period: a burst is not extrapolated. */
    private static final int SHORTEST_SPAN_PARTS = 10;

    /**
     * The part of a lease (of its permits, or of its period) left when the next one is asked for ahead, so that its
     * callers go on from this one meanwhile rather than wait for Redis when it runs out.
     */
    private static final int AHEAD_PARTS = 4;

    /** The longest a call to Redis waits for give-backs under way: a slower one (Redis down) holds nothing back. */
    private static final long GIVE_BACK_WAIT_MILLIS = 1_000;

    private final String limiterName;
    private final LimitSpec spec;
    private final Duration period;
    private final LeaseCalls calls;

    private long left;
    private long size;
    private boolean askedAhead;
    private long roundTripNanos;
    private long endNanos;
    private String receipt;
    private long free;
    private Duration next = Duration.ZERO;
    private long spent;
    private long spanStartNanos = System.nanoTime();
    private CompletableFuture<Decision> fetching;
    /** The give-backs sent and not yet answered: the next call to Redis waits for them. */
    private CompletableFuture<Void> givingBack = CompletableFuture.completedFuture(null);
    private boolean dropped;
    private long lastRequestNanos = System.nanoTime();

    LimiterLease(String limiterName, LimitSpec spec, Duration period, LeaseCalls calls) {
        this.limiterName = limiterName;
        this.spec = spec;
        this.period = period;
        this.calls = calls;
    }

    LimitSpec spec() {
        return spec;
    }

    boolean serves(AcquireRequest request) {
        return spec.equals(request.spec()) && period.equals(request.lease().period());
    }

    /**
     * Takes {@code permits} from the lease if it holds them and may still spend them; records the spend. Null when it
     * cannot.
     */
    Decision take(long permits) {
        long available;
        Duration nextIn;
        String granted;
        synchronized (this) {
            if (!takeAt(permits, System.nanoTime())) {
                return null;
            }
            available = available();
            nextIn = next;
            granted = receipt;
        }
        return granted(available, nextIn, granted);
    }

    /**
     * Takes {@code permits} when the lease holds them and may still spend them at {@code now}, read under the lock (a
     * caller that waited for it must not spend after the lease's end); records the spend and the request.
     */
    private boolean takeAt(long permits, long now) {
        lastRequestNanos = now;
        if (dropped || left < permits || now - endNanos >= 0) {
            return false;
        }
        left -= permits;
        spent += permits;
        return true;
    }

    /** Puts back permits a call took from the live lease {@code granted} and did not use; false when it ended. */
    synchronized boolean putBack(long permits, String granted) {
        if (!granted.equals(receipt) || System.nanoTime() - endNanos >= 0 || left + permits > spec.capacity()) {
            return false;
        }
        left += permits;
        spent -= permits;
        return true;
    }

    /**
     * A decision from the lease, else after the one call to Redis under way or started now. A call that finds the
     * lease running out (a quarter of its permits left, or of its period, or twice the last call's round trip) asks
     * for the next one, ahead.
     */
    CompletionStage<Decision> acquire(AcquireRequest request) {
        CompletableFuture<Decision> under;
        CompletableFuture<Decision> mine = null;
        boolean took;
        long available = 0;
        Duration nextIn = null;
        String granted = null;
        Unspent unspent = null;
        long wanted = 0;
        synchronized (this) {
            // one clock read, in the lock: the hit holds it as briefly as it can, and its decision is made after
            long now = System.nanoTime();
            took = takeAt(request.permits(), now);
            if (took) {
                available = available();
                nextIn = next;
                granted = receipt;
            }
            under = fetching;
            // the demand is measured only when a call may be asked: not on the common hit
            boolean mayAsk = under == null && !dropped && (!took || (!askedAhead && runningOut(now)));
            long demand = mayAsk ? size(request.permits(), now) : 0;
            if (mayAsk && (!took || demand > request.permits())) {
                if (!took) {
                    unspent = endNow();
                }
                askedAhead = took;
                wanted = demand;
                spanStartNanos = now;
                spent = 0;
                mine = new CompletableFuture<>();
                fetching = mine;
            }
        }
        if (took) {
            calls.hit();
            if (mine != null) {
                fetch(request, wanted, mine, true);
            }
            return CompletableFuture.completedFuture(granted(available, nextIn, granted));
        }
        giveBack(unspent);
        if (mine != null) {
            fetch(request, wanted, mine, false);
            return mine;
        }
        if (under == null) {
            return calls.again(request); // dropped: the backend's lease of the limiter now, if any
        }
        // arrived during another caller's call: from the lease it brings, else its rejection, else a call of its own
        return under.thenCompose(fetched -> fetched.allowed() ? acquire(request)
                : CompletableFuture.completedFuture(fetched));
    }

    /**
     * Whether a quarter or less of the lease's permits is left, or of its period, or twice a round trip; never for a
     * lease of fewer than four permits, whose callers seldom wait for the next and which two leases held at once
     * would leave little of for the other instances.
     */
    private boolean runningOut(long now) {
        return size >= AHEAD_PARTS && (left * AHEAD_PARTS <= size
                || endNanos - now <= Math.max(period.toNanos() / AHEAD_PARTS, 2 * roundTripNanos));
    }

    /**
     * Asks Redis for a lease of {@code wanted} (a plain decision when that is no more than the request's), once the
     * give-backs under way are answered. Asked {@code ahead} by a call the current lease served, the new lease takes
     * over from it when granted (what it did not spend goes back) and holds the request's permits too; a plain grant
     * goes back at once, and callers waiting for the answer decide again.
     */
    private void fetch(AcquireRequest request, long wanted, CompletableFuture<Decision> result, boolean ahead) {
        if (!ahead) {
            calls.redisCall(); // a decision by Redis; a lease asked ahead decides nothing
        }
        CompletableFuture<Void> before;
        synchronized (this) {
            before = givingBack;
        }
        if (before.isDone()) {
            send(request, wanted, result, ahead);
        }
        else {
            before.copy().completeOnTimeout(null, GIVE_BACK_WAIT_MILLIS, TimeUnit.MILLISECONDS)
                    .whenComplete((givenBack, ex) -> send(request, wanted, result, ahead));
        }
    }

    /**
     * Sends the call of {@link #fetch}. The lease it brings is spent until its period has passed since the call left,
     * before Redis's clock read the grant's time.
     */
    private void send(AcquireRequest request, long wanted, CompletableFuture<Decision> result, boolean ahead) {
        long sent = System.nanoTime();
        CompletionStage<Decision> reply;
        try {
            reply = calls.delegate().acquire(wanted > request.permits()
                    ? request.withLease(new AcquireRequest.Lease(period, wanted)) : request.withLease(null));
        }
        catch (RuntimeException ex) {
            reply = CompletableFuture.failedFuture(ex);
        }
        reply.whenComplete((decision, ex) -> {
            Decision answer = decision;
            Unspent unused = null;
            long answered = System.nanoTime();
            synchronized (this) {
                roundTripNanos = answered - sent;
                if (ex == null && decision.allowed() && decision.state() != null) {
                    free = decision.state().available();
                    next = decision.state().nextPermitIn();
                }
                if (ex == null && decision.allowed() && decision.leased() > 0 && !dropped) {
                    unused = ahead ? endNow() : null;
                    // a fixed window's lease ends with its window, which its grant tells
                    long spendNanos = decision.state() == null ? period.toNanos()
                            : spec.algorithm().leaseSpend(period, decision.state().nextPermitIn()).toNanos();
                    left = decision.leased() + (ahead ? request.permits() : 0);
                    size = left;
                    endNanos = sent + spendNanos;
                    receipt = decision.receipt();
                    answer = new Decision(true, Duration.ZERO, state(), false, receipt);
                    CompletableFuture.delayedExecutor(spendNanos, TimeUnit.NANOSECONDS)
                            .execute(() -> expire(decision.receipt()));
                }
                else if (ex == null && decision.allowed() && ahead && decision.receipt() != null) {
                    // a plain grant (Redis near exhaustion), stamped now: it cannot wait in memory for a caller
                    unused = new Unspent(request.permits(), decision.receipt());
                }
                if (ex == null && decision.allowed() && !ahead) {
                    spent += request.permits();
                }
                fetching = null;
            }
            giveBack(unused); // before the callers waiting for the answer decide again
            // completed after the lock: callers chained on it take from the new lease at once
            if (ex != null) {
                result.completeExceptionally(ex);
            }
            else {
                result.complete(answer);
            }
        });
    }

    /**
     * The permits of the next lease: what this instance spent since the last call to Redis, over at least a tenth of
     * the period, scaled to one period; at least the request's own, at most the capacity (Redis grants at most half
     * of what it can give, see acquire-sliding.lua, acquire-bucket.lua, acquire-window.lua).
     */
    private long size(long permits, long now) {
        long span = Math.max(now - spanStartNanos, period.toNanos() / SHORTEST_SPAN_PARTS);
        double demand = Math.ceil(spent * (double) period.toNanos() / span);
        return Math.min(spec.capacity(), Math.max(permits, (long) demand));
    }

    /** At the lease's end: what it did not spend goes back, unless a newer lease replaced it meanwhile. */
    private void expire(String ended) {
        Unspent unspent;
        synchronized (this) {
            if (!ended.equals(receipt)) {
                return;
            }
            unspent = endNow();
        }
        giveBack(unspent);
    }

    /** Gives back {@code unspent} (null: nothing); this lease's next call to Redis waits for Redis's answer. */
    private void giveBack(Unspent unspent) {
        if (unspent == null) {
            return;
        }
        CompletableFuture<Void> sent = calls.giveBack(limiterName, spec, unspent).toCompletableFuture();
        synchronized (this) {
            // only those under way are kept: a chain of answered ones would grow without end
            givingBack = givingBack.isDone() ? sent : CompletableFuture.allOf(givingBack, sent);
        }
    }

    /** Ends the lease now: nothing more is spent from it; its unspent permits, for a refund, or null. */
    synchronized Unspent endNow() {
        Unspent unspent = left > 0 && receipt != null ? new Unspent(left, receipt) : null;
        left = 0;
        askedAhead = false;
        receipt = null;
        endNanos = System.nanoTime();
        return unspent;
    }

    /**
     * Drops the lease for good (a reset or an override): nothing more is spent from it, its unspent permits are not
     * given back, a lease still being fetched is not taken up, and its callers decide again. Always true.
     */
    synchronized boolean drop() {
        dropped = true;
        left = 0;
        receipt = null;
        return true;
    }

    /**
     * Retires the lease when it holds no permit, fetches none and saw no request for one lease period (what it
     * measured of the demand is then worth nothing): its callers, should any come, decide again. Whether it is
     * retired.
     */
    synchronized boolean retireIfIdle(long now) {
        if (!dropped && (fetching != null || left > 0 || now - lastRequestNanos < period.toNanos())) {
            return false;
        }
        return drop();
    }

    /** The permits held and how long they may still be spent; null when none may. */
    synchronized LeaseCounts.Holding holding() {
        long endsIn = endNanos - System.nanoTime();
        return left > 0 && endsIn > 0 ? new LeaseCounts.Holding(left, Duration.ofNanos(endsIn)) : null;
    }

    /** What Redis's last answer said was free, plus what this instance holds, never more than the rate. */
    private LimitState state() {
        return new LimitState(available(), next);
    }

    private long available() {
        return Math.min(spec.rate(), free + left);
    }

    /** A grant from the lease, leaving {@code available} permits, the next free in {@code nextIn}. */
    private static Decision granted(long available, Duration nextIn, String receipt) {
        return new Decision(true, Duration.ZERO, new LimitState(available, nextIn), false, receipt);
    }

    /** Permits a lease did not spend, and the receipt that gives them back. */
    record Unspent(long permits, String receipt) {
    }
}
