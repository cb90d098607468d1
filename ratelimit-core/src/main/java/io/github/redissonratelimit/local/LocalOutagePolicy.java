package io.github.redissonratelimit.local;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitBackendUnavailableException.Reason;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.limiter.AcquireBatch;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Completions;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.DelegatingRateLimitBackend;
import io.github.redissonratelimit.limiter.NoDecision;
import io.github.redissonratelimit.limiter.RateLimitBackend;

/**
 * The {@code LOCAL} outage policy as a decorator, for requests under it that are not in shadow mode: asks
 * {@link LocalFallback} first, which holds a limiter to this instance's share for a while after an outage; records
 * every answer of the delegate (what Redis granted and left free); and when the delegate gives no decision
 * ({@link NoDecision}), decides in memory. Decisions made in memory are marked {@link Decision#local()}; when Redis
 * answers again, the grants made in memory are written to it, and a limiter's next decision waits for its own
 * ({@link LocalFallback#writeBeforeDeciding}). Requests under another policy, or in shadow mode, pass through untouched.
 */
public final class LocalOutagePolicy implements DelegatingRateLimitBackend {

    private final RateLimitBackend delegate;
    private final LocalFallback fallback;

    public LocalOutagePolicy(RateLimitBackend delegate, LocalFallback fallback) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.fallback = Objects.requireNonNull(fallback, "fallback");
    }

    /** What this policy decides with and records in. */
    public LocalFallback getFallback() {
        return fallback;
    }

    @Override
    public CompletionStage<Decision> acquire(AcquireRequest request) {
        if (!appliesTo(request)) {
            return delegate.acquire(request);
        }
        CompletableFuture<Void> writing = fallback.writeBeforeDeciding(request.limiterName());
        return writing == null ? decide(request) : writing.thenCompose(written -> decide(request));
    }

    private CompletionStage<Decision> decide(AcquireRequest request) {
        CompletionStage<Decision> before = rejectionBeforeRedis(request);
        if (before != null) {
            return before;
        }
        return afterRedis(request, ask(request));
    }

    /** Like {@link #acquire}, each request in turn; those the share does not reject go to the delegate together. */
    @Override
    public List<CompletionStage<Decision>> acquireAll(List<AcquireRequest> requests) {
        return AcquireBatch.decorate(requests, delegate, new AcquireBatch.Layer() {

            @Override
            public CompletionStage<Decision> answer(int index) {
                AcquireRequest request = requests.get(index);
                if (!appliesTo(request)) {
                    return null;
                }
                // decided alone once its grants made in memory are written, so that Redis counts them
                CompletableFuture<Void> writing = fallback.writeBeforeDeciding(request.limiterName());
                return writing != null ? writing.thenCompose(written -> decide(request)) : rejectionBeforeRedis(request);
            }

            @Override
            public CompletionStage<Decision> after(int index, CompletionStage<Decision> asked) {
                AcquireRequest request = requests.get(index);
                return appliesTo(request) ? afterRedis(request, asked.toCompletableFuture()) : asked;
            }
        }, (request, index) -> { });
    }

    /**
     * A grant made in memory goes back to this instance's share only; one made by Redis to Redis, and to the share,
     * which counts it against this instance.
     */
    @Override
    public CompletionStage<Void> release(AcquireRequest request, Decision granted) {
        if (!appliesTo(request)) {
            return delegate.release(request, granted);
        }
        fallback.released(request.limiterName(), request.permits());
        return granted.local() ? CompletableFuture.completedFuture(null) : delegate.release(request, granted);
    }


    @Override
    public RateLimitBackend getDelegate() {
        return delegate;
    }

    private static boolean appliesTo(AcquireRequest request) {
        return !request.shadow() && request.onBackendError() == BackendErrorPolicy.LOCAL;
    }

    private CompletableFuture<Decision> ask(AcquireRequest request) {
        try {
            return delegate.acquire(request).toCompletableFuture();
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /** The share's rejection while Redis does not know the grants made in memory; null: ask Redis. */
    private CompletionStage<Decision> rejectionBeforeRedis(AcquireRequest request) {
        Decision before = fallback.rejectionBeforeRedis(request.limiterName(), request.spec(), request.permits());
        return before == null ? null : CompletableFuture.completedFuture(before.madeLocally());
    }

    /** Redis's answer recorded, or, when Redis gave none, the decision made in memory. */
    private CompletionStage<Decision> afterRedis(AcquireRequest request, CompletableFuture<Decision> asked) {
        if (asked.isDone() && !asked.isCompletedExceptionally()) {
            // answered already (e.g. a rejection from memory): no stage of its own; a remembered rejection is not a
            // new answer of Redis, whose answer behind it was recorded when it came
            Decision decision = asked.join();
            if (decision.allowed()) {
                Decision kept = answeredByRedis(request, decision);
                return kept == decision ? asked : CompletableFuture.completedFuture(kept);
            }
            fallback.redisAnswered();
            return asked;
        }
        CompletableFuture<Decision> decided = asked.handle((decision, ex) -> {
            if (ex == null) {
                return answeredByRedis(request, decision);
            }
            Throwable error = Completions.unwrap(ex);
            if (error instanceof NoDecision noDecision) {
                // an open circuit sent nothing: no sign of when Redis stopped answering
                boolean sent = !(error instanceof RateLimitBackendUnavailableException unavailable
                        && unavailable.getReason() == Reason.CIRCUIT_OPEN);
                // sent that long ago (no clock read per decision for it: the backend tells); not told, just now
                long askedAt = fallback.nanoTime() - noDecision.getWaited().toNanos();
                return fallback.decide(request.limiterName(), request.spec(), request.permits(), askedAt, sent)
                        .madeLocally();
            }
            throw ex instanceof CompletionException completion ? completion : new CompletionException(error);
        });
        if (request.waits()) {
            // a caller who stops waiting for the decision stops the wait for permits behind it
            decided.whenComplete((decision, ex) -> {
                if (decided.isCancelled()) {
                    asked.cancel(false);
                }
            });
        }
        return decided;
    }

    /**
     * Redis's answer, or, when its grant does not fit the share that holds after an outage (see
     * {@link LocalFallback#answeredByRedis}), a rejection, Redis's grant given back (if that fails, the permits stay
     * held until they leave the window: never more granted).
     */
    private Decision answeredByRedis(AcquireRequest request, Decision decision) {
        Decision kept = fallback.answeredByRedis(request.limiterName(), request.spec(), request.permits(), decision);
        if (kept != decision) {
            try {
                delegate.release(request, decision);
            }
            catch (RuntimeException ex) {
                // kept in Redis's window: counted, never over-granted
            }
        }
        return kept;
    }
}
