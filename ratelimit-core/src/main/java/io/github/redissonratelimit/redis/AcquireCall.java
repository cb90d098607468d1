package io.github.redissonratelimit.redis;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * One decision on its way to Redis: take {@code permits} from the limiter declared as {@code spec}, {@code check}
 * saying what to make of its stored config, for {@code waiter} (null unless a caller waits in line), taking up to
 * {@code lease}'s permits (null: a plain decision); {@code result} completes with Redis's answer.
 */
record AcquireCall(String limiterName, long permits, LimitSpec spec, AcquireScript.ConfigCheck check,
        AcquireRequest.Waiter waiter, AcquireRequest.Lease lease, CompletableFuture<AcquireScript.Reply> result)
        implements QueuedAcquire {

    AcquireCall(String limiterName, long permits, LimitSpec spec, AcquireScript.ConfigCheck check,
            CompletableFuture<AcquireScript.Reply> result) {
        this(limiterName, permits, spec, check, null, null, result);
    }

    @Override
    public int size() {
        return 1;
    }

    @Override
    public void forEachCall(Consumer<AcquireCall> action) {
        action.accept(this);
    }

    @Override
    public QueuedAcquire pending() {
        return result.isDone() ? null : this;
    }
}
