package io.github.redissonratelimit.limiter;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

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

    private final RateLimitBackend delegate;

    public WaitingRateLimitBackend(RateLimitBackend delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
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
        attempt(result, request, deadlineOf(request));
        return result;
    }

    /** The first attempts of the requests go to the delegate together; each that waits goes on as {@link #acquire}. */
    @Override
    public List<CompletionStage<Decision>> acquireAll(List<AcquireRequest> requests) {
        long now = System.nanoTime();
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
                answered(first, result, request, now + request.waitTimeout().toNanos());
                return result;
            }
        }, (request, index) -> { });
    }

    private static long deadlineOf(AcquireRequest request) {
        return System.nanoTime() + request.waitTimeout().toNanos();
    }

    private void attempt(CompletableFuture<Decision> result, AcquireRequest request, long deadline) {
        if (result.isDone()) {
            return; // the caller gave up while this attempt waited for its turn
        }
        CompletionStage<Decision> asked;
        try {
            asked = delegate.acquire(request);
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
