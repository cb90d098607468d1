package io.github.redissonratelimit.redis;

import java.util.function.Consumer;

/**
 * What a pipeline lane queues and sends as one script call: one decision ({@link AcquireCall}), or the decisions of
 * one rate limited call whose limiters share a slot ({@link AcquireGroup}), queued as one so that no concurrent send
 * can take part of them.
 */
sealed interface QueuedAcquire permits AcquireCall, AcquireGroup {

    /** The decisions it carries. */
    int size();

    /** The limiter whose name routes the script call (all its keys share that limiter's slot). */
    String limiterName();

    void forEachCall(Consumer<AcquireCall> action);

    /** What is left to send once the callers who gave up are left out; null when nobody is waiting any more. */
    QueuedAcquire pending();
}
