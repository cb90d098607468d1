package io.github.redissonratelimit.redis;

import java.util.List;
import java.util.function.Consumer;

/** Decisions of one rate limited call on limiters of one slot, sent as one {@code acquire-many.lua} call. */
record AcquireGroup(List<AcquireCall> calls) implements QueuedAcquire {

    @Override
    public int size() {
        return calls.size();
    }

    @Override
    public String limiterName() {
        return calls.get(0).limiterName();
    }

    @Override
    public void forEachCall(Consumer<AcquireCall> action) {
        calls.forEach(action);
    }

    @Override
    public QueuedAcquire pending() {
        List<AcquireCall> waiting = calls.stream().filter(call -> !call.result().isDone()).toList();
        if (waiting.size() == calls.size()) {
            return this;
        }
        return waiting.isEmpty() ? null : waiting.size() == 1 ? waiting.get(0) : new AcquireGroup(waiting);
    }
}
