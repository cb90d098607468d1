package io.github.redissonratelimit.interceptor;

import java.time.Duration;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.outcome.RateLimitOutcome;
import io.github.redissonratelimit.outcome.RateLimitOutcome.Result;

/**
 * One limit as it applies to one call: the operation with the call's key, and the request the decision stack is
 * asked (the limiter name, the permits the call takes: the operation's fixed permits, or what its cost expression
 * gave for the call; the limit's outage policy, shadow mode and wait).
 */
record LimitCall(RateLimitOperation operation, String key, AcquireRequest request) {

    String limiterName() {
        return request.limiterName();
    }

    long permits() {
        return request.permits();
    }

    /** Whether the limit waits for permits that are not free yet (its wait timeout; never in shadow mode). */
    boolean waits() {
        return request.waits();
    }

    RateLimitOutcome outcome(Decision decision, long startNanos) {
        String limiterName = request.limiterName();
        long permits = request.permits();
        Result result = decision.local() ? (decision.allowed() ? Result.LOCAL_ALLOWED : Result.LOCAL_REJECTED)
                : decision.allowed() ? Result.ALLOWED
                : operation.shadow() ? Result.SHADOW_REJECTED : Result.REJECTED;
        return new RateLimitOutcome(operation.name(), operation.displayName(), key, limiterName, operation.spec(),
                permits, result, decision.retryAfter(), Duration.ofNanos(System.nanoTime() - startNanos), null,
                decision.state(), operation.shadow());
    }

    RateLimitOutcome failure(Throwable error, long startNanos) {
        String limiterName = request.limiterName();
        long permits = request.permits();
        return new RateLimitOutcome(operation.name(), operation.displayName(), key, limiterName, operation.spec(),
                permits, Result.ERROR, Duration.ZERO, Duration.ofNanos(System.nanoTime() - startNanos), error, null,
                operation.shadow());
    }

    RateLimitExceededException rejection(Decision decision) {
        return new RateLimitExceededException(operation.message(), operation.name(), operation.displayName(), key,
                request.limiterName(), operation.spec(), request.permits(), decision.retryAfter());
    }
}
