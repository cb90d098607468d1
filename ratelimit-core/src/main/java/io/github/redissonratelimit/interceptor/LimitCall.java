package io.github.redissonratelimit.interceptor;

import java.time.Duration;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.outcome.RateLimitOutcome;
import io.github.redissonratelimit.outcome.RateLimitOutcome.Result;

/** One limit as it applies to one call: the operation with the call's key and limiter name. */
record LimitCall(RateLimitOperation operation, String key, String limiterName) {

    RateLimitOutcome outcome(Decision decision, long startNanos) {
        return new RateLimitOutcome(operation.name(), operation.displayName(), key, limiterName, operation.spec(),
                operation.permits(), decision.allowed() ? Result.ALLOWED : Result.REJECTED, decision.retryAfter(),
                Duration.ofNanos(System.nanoTime() - startNanos), null, decision.state());
    }

    RateLimitOutcome failure(Throwable error, long startNanos) {
        return new RateLimitOutcome(operation.name(), operation.displayName(), key, limiterName, operation.spec(),
                operation.permits(), Result.ERROR, Duration.ZERO, Duration.ofNanos(System.nanoTime() - startNanos), error, null);
    }

    RateLimitExceededException rejection(Decision decision) {
        return new RateLimitExceededException(operation.message(), operation.name(), operation.displayName(), key,
                limiterName, operation.spec(), operation.permits(), decision.retryAfter());
    }
}
