package io.github.redissonratelimit.limiter;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Waits for permits, for requests that may ({@link AcquireRequest#waits()}): after a rejection, waits its
 * retry-after on a timer (no thread blocks), then asks the delegate again, until the permits are taken or the
 * request's {@code waitTimeout} leaves no room. A rejection whose retry-after lies beyond what is left of the wait is
 * returned at once: waiting could not help. Requests without a wait go straight to the delegate.
 *
 * <p>Redisson's own {@code tryAcquire(permits, timeout)} sleeps out the whole timeout when the next permit
 * comes back after it, and retries on the time until the oldest grant expires even when that grant does not
 * free enough permits. Here each retry waits for the time the rejected attempt answered for the permits
 * actually asked for.
 *
 * <p>A caller that stops waiting (a cancelled future, an interrupted thread, a cancelled subscription) ends the
 * wait: no further attempt is made, and a grant an attempt under way makes anyway is given back.
 */
public final class WaitingRateLimitBackend implements DelegatingRateLimitBackend {

    /** Lower bound of a pause between two attempts, so a zero retry-after under contention cannot spin. */
    private static final long MIN_PAUSE_MILLIS = 1;

    /** The longest pause between attempts on a limit whose permits come back when calls end, signal or not. */
    private static final long HELD_POLL_MILLIS = 1_000;

    /**
     * How many of its longest pauses a waiter in line keeps its place for without asking again: it asks within one
     * (woken or not), so only a waiter gone (its instance stopped) loses its place, this long after its last ask.
     */
    private static final int KEPT_IN_LINE_PAUSES = 3;

    /** Numbers the waiters in line of this JVM. */
    private static final AtomicLong waiters = new AtomicLong();

    private final RateLimitBackend delegate;
    private final ReleaseSignals signals;

    public WaitingRateLimitBackend(RateLimitBackend delegate) {
        this(delegate, ReleaseSignals.NONE);
    }

    /**
     * @param signals wake the callers waiting on a limit whose permits come back when calls end (an in-flight
     * limit's) when a call gives permits back; without one, such callers ask again each second
     */
    public WaitingRateLimitBackend(RateLimitBackend delegate, ReleaseSignals signals) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.signals = Objects.requireNonNull(signals, "signals");
    }

    /**
     * The permits, taken within the request's wait. Cancelling the returned future ends the wait: no attempt is made
     * after it, and a grant that an attempt already under way makes afterwards is given back, so that a caller who
     * is gone never holds permits.
     */
    @Override
    public CompletionStage<Decision> acquire(AcquireRequest request) {
        if (!request.waits()) {
            return delegate.acquire(request);
        }
        CompletableFuture<Decision> result = new CompletableFuture<>();
        AcquireRequest inLine = inLine(request);
        leavesTheLineWhenCancelled(result, inLine);
        attempt(result, inLine, deadlineOf(request));
        return result;
    }

    /** The first attempts of the requests go to the delegate together; each that waits goes on as {@link #acquire}. */
    @Override
    public List<CompletionStage<Decision>> acquireAll(List<AcquireRequest> asked) {
        long now = System.nanoTime();
        List<AcquireRequest> requests = asked.stream()
                .map(request -> request.waits() ? attemptOf(inLine(request), now + request.waitTimeout().toNanos())
                        : request)
                .toList();
        return AcquireBatch.decorate(requests, delegate, new AcquireBatch.Layer() {

            @Override
            public CompletionStage<Decision> answer(int index) {
                return null;
            }

            @Override
            public CompletionStage<Decision> after(int index, CompletionStage<Decision> first) {
                AcquireRequest request = requests.get(index);
                if (!request.waits()) {
                    return first;
                }
                CompletableFuture<Decision> result = new CompletableFuture<>();
                leavesTheLineWhenCancelled(result, request);
                answered(first, result, request, now + request.waitTimeout().toNanos());
                return result;
            }
        }, (request, index) -> { });
    }

    private static long deadlineOf(AcquireRequest request) {
        return System.nanoTime() + request.waitTimeout().toNanos();
    }

    /**
     * A request for permits that come back when calls end (an in-flight limit's) waits in line: each of its attempts
     * names it, so that the backend grants the waiters of every instance in the order of their first refusal.
     */
    private static AcquireRequest inLine(AcquireRequest request) {
        return request.spec().algorithm().held()
                ? request.inLineAs(new AcquireRequest.Waiter(waiters.incrementAndGet(), Duration.ZERO)) : request;
    }

    /** The next attempt of {@code request}: a waiter in line keeps its place until its deadline, or a few pauses. */
    private static AcquireRequest attemptOf(AcquireRequest request, long deadline) {
        if (request.waiter() == null) {
            return request;
        }
        long left = Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        long kept = Math.min(left, KEPT_IN_LINE_PAUSES * longestPauseMillis(request));
        return request.inLineAs(new AcquireRequest.Waiter(request.waiter().id(), Duration.ofMillis(kept)));
    }

    /**
     * A waiter in line whose caller gave up leaves the line at once rather than a few pauses later: its last attempt
     * keeps its place for 0 ms (a grant it gets meanwhile goes back at once).
     */
    private void leavesTheLineWhenCancelled(CompletableFuture<Decision> result, AcquireRequest request) {
        if (request.waiter() == null) {
            return;
        }
        result.whenComplete((decided, ex) -> {
            if (!result.isCancelled()) {
                return;
            }
            AcquireRequest leaving = request.inLineAs(new AcquireRequest.Waiter(request.waiter().id(), Duration.ZERO));
            try {
                delegate.acquire(leaving).whenComplete((decision, failed) -> {
                    if (failed == null && decision.allowed()) {
                        giveBack(leaving, decision);
                    }
                });
            }
            catch (RuntimeException failed) {
                // its place in line ends on its own, a few pauses after its last attempt
            }
        });
    }

    private static long longestPauseMillis(AcquireRequest request) {
        return Math.min(HELD_POLL_MILLIS, request.spec().interval().toMillis() / 3);
    }

    private void attempt(CompletableFuture<Decision> result, AcquireRequest request, long deadline) {
        if (result.isDone()) {
            return; // the caller gave up while this attempt waited for its turn
        }
        CompletionStage<Decision> asked;
        try {
            asked = delegate.acquire(attemptOf(request, deadline));
        }
        catch (RuntimeException ex) {
            result.completeExceptionally(ex);
            return;
        }
        answered(asked, result, request, deadline);
    }

    private void answered(CompletionStage<Decision> asked, CompletableFuture<Decision> result, AcquireRequest request,
            long deadline) {
        asked.whenComplete((decision, ex) -> {
            if (ex != null) {
                result.completeExceptionally(Completions.unwrap(ex));
                return;
            }
            if (!decision.allowed() && request.spec().algorithm().held() && deadline - System.nanoTime() > 0
                    && !result.isDone()) {
                awaitRelease(result, request, deadline);
                return;
            }
            long pause = pauseMillis(decision, deadline);
            if (pause < 0) {
                if (!result.complete(decision) && decision.allowed()) {
                    giveBack(request, decision);
                }
                return;
            }
            if (!result.isDone()) {
                Executor later = CompletableFuture.delayedExecutor(pause, TimeUnit.MILLISECONDS);
                later.execute(() -> attempt(result, request, deadline));
            }
        });
    }

    /**
     * Waits for a call to give permits of the request's limit back (its signal, in the order the waiters began to
     * wait), or at most {@link #HELD_POLL_MILLIS} (a lease that ended unrenewed gives no signal), then asks again. A
     * give-back between the refusal and the start of listening is not signalled: the first wait on a limiter asks once
     * more as soon as it listens.
     */
    private void awaitRelease(CompletableFuture<Decision> result, AcquireRequest request, long deadline) {
        long arrival = deadline - request.waitTimeout().toNanos();
        ReleaseSignals.Signal signal = signals.next(request.limiterName(), request.permits(), arrival);
        CompletableFuture<Void> wake = signal.released();
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        long poll = Math.max(1, Math.min(left, longestPauseMillis(request)));
        CompletableFuture.delayedExecutor(poll, TimeUnit.MILLISECONDS).execute(() -> wake.complete(null));
        result.whenComplete((decided, ex) -> wake.cancel(false));
        wake.whenComplete((woken, ex) -> {
            if (!wake.isCancelled()) {
                attempt(result, request, deadline);
            }
        });
        CompletableFuture<Void> listening = signal.listening().toCompletableFuture();
        if (listening.isDone()) {
            return;
        }
        listening.thenRun(() -> {
            if (wake.isDone() || result.isDone()) {
                return;
            }
            delegate.acquire(attemptOf(request, deadline)).whenComplete((decision, ex) -> {
                if (ex != null) {
                    result.completeExceptionally(Completions.unwrap(ex));
                }
                else if (decision.allowed()) {
                    if (!result.complete(decision)) {
                        giveBack(request, decision);
                    }
                }
            });
        });
    }

    /** A grant made for a caller who is gone goes back at once; if that fails, it returns when it leaves the window. */
    private void giveBack(AcquireRequest request, Decision granted) {
        try {
            delegate.release(request, granted);
        }
        catch (RuntimeException ex) {
            // the grant leaves the window on its own
        }
    }

    /** How long to pause before the next attempt, or -1 when the decision is final. */
    private static long pauseMillis(Decision decision, long deadline) {
        if (decision.allowed()) {
            return -1;
        }
        long pause = Math.max(MIN_PAUSE_MILLIS, decision.retryAfter().toMillis());
        return TimeUnit.MILLISECONDS.toNanos(pause) > deadline - System.nanoTime() ? -1 : pause;
    }



    /** The backend asked for each attempt. */
    @Override
    public RateLimitBackend getDelegate() {
        return delegate;
    }
}
