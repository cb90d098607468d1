package io.github.redissonratelimit.interceptor;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.limiter.Completions;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.local.LocalFallback;
import io.github.redissonratelimit.operation.RateLimitOperation;

/**
 * A limit under the {@code LOCAL} outage policy: asked through its {@link LocalFallback}, which holds it to this
 * instance's share for a while after an outage, decides in memory when Redis gives no decision, and records what
 * Redis granted. Marks the decisions made in memory for the caller.
 */
final class LocalPolicyDecisions {

    private LocalPolicyDecisions() {
    }

    /**
     * @param redis asks the backend
     * @param local set at {@code index} when the decision is made in memory (before the stage completes)
     */
    static CompletionStage<Decision> ask(LocalFallback fallback, LimitCall call, Supplier<CompletionStage<Decision>> redis,
            boolean[] local, int index) {
        CompletionStage<Decision> before = rejectionBeforeRedis(fallback, call, local, index);
        return before != null ? before : afterRedis(fallback, call, redis.get().toCompletableFuture(), local, index);
    }

    /** The share's rejection while Redis does not know the grants made in memory (marked local); null: ask Redis. */
    static CompletionStage<Decision> rejectionBeforeRedis(LocalFallback fallback, LimitCall call, boolean[] local,
            int index) {
        Decision before = fallback.rejectionBeforeRedis(call.limiterName(), call.operation().spec(), call.permits());
        if (before == null) {
            return null;
        }
        local[index] = true;
        return CompletableFuture.completedFuture(before);
    }

    /** Redis's answer recorded, or, when Redis gave none, the decision made in memory (marked local). */
    static CompletionStage<Decision> afterRedis(LocalFallback fallback, LimitCall call, CompletableFuture<Decision> asked,
            boolean[] local, int index) {
        RateLimitOperation operation = call.operation();
        if (asked.isDone() && !asked.isCompletedExceptionally()) {
            // answered already (e.g. a rejection from memory): no stage of its own; a remembered rejection is not a
            // new answer of Redis, whose answer behind it was recorded when it came
            Decision decision = asked.join();
            if (decision.allowed()) {
                seenByRedis(fallback, call, decision);
            }
            else {
                fallback.redisAnswered();
            }
            return asked;
        }
        CompletableFuture<Decision> decided = asked.handle((decision, ex) -> {
            if (ex == null) {
                seenByRedis(fallback, call, decision);
                return decision;
            }
            Throwable error = Completions.unwrap(ex);
            if (error instanceof RateLimitBackendUnavailableException) {
                local[index] = true;
                return fallback.decide(call.limiterName(), operation.spec(), call.permits());
            }
            throw ex instanceof CompletionException completion ? completion : new CompletionException(error);
        });
        if (call.waits()) {
            // a caller who stops waiting for the decision stops the wait for permits behind it
            decided.whenComplete((decision, ex) -> {
                if (decided.isCancelled()) {
                    asked.cancel(false);
                }
            });
        }
        return decided;
    }

    private static void seenByRedis(LocalFallback fallback, LimitCall call, Decision decision) {
        fallback.answeredByRedis(call.limiterName(), call.operation().spec(), call.permits(), decision);
    }
}
