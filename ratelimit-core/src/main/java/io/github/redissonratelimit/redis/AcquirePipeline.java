package io.github.redissonratelimit.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.UnaryOperator;

import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RScriptAsync;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * Sends {@link AcquireScript} calls to Redis, several at a time in one pipeline (a Redisson batch) when
 * they come in faster than Redis answers.
 *
 * <p>A call goes out at once while fewer than {@code maxInFlight} sends are waiting for Redis; otherwise
 * it waits in a queue, and the next free send takes everything queued (up to {@code maxBatchSize}) in one
 * write. Alone, a call costs exactly what a plain script call costs; under concurrency, Redis and the
 * client read and write many calls per system call instead of one each, which is what their CPU goes to
 * (see {@code docs/performance.md}). Each call remains its own script call, answered on its own.
 *
 * <p>A send occupies its slot until Redis answered or every caller in it gave up (cancelled its future,
 * as the outage deadline does), so that a Redis outage does not keep slots busy for Redisson's whole retry
 * time once Redis is back. A call cancelled while queued is never sent; one cancelled after it was sent is
 * cancelled in Redisson too, which stops Redisson's retries of it where Redisson links the two (not for
 * script calls with its script cache on, Redisson's default: see {@code RedissonRateLimitBackend}). With
 * {@link LimiterClock#CLIENT} the time stamp of a grant is read when its call is sent, not when it was queued;
 * by default Redis stamps it when the script runs.
 *
 * <p>On a Redis Cluster each master has its own {@code maxInFlight} sends and its own queue ({@code masterOf}),
 * so that the calls waiting for a dead master until their deadline cannot hold up the calls to the others.
 */
final class AcquirePipeline {

    private final RedissonClient redisson;
    private final AcquireScript script;
    private final int maxInFlight;
    private final int maxBatchSize;
    private final RScript direct;
    private final UnaryOperator<String> masterOf;
    private final ConcurrentMap<String, Lane> lanes = new ConcurrentHashMap<>();
    private final LongAdder sends = new LongAdder();

    /**
     * @param maxInFlight sends that may wait for Redis at once; 0 sends every call on its own at once
     * @param maxBatchSize most calls in one send
     */
    AcquirePipeline(RedissonClient redisson, AcquireScript script, int maxInFlight, int maxBatchSize) {
        this(redisson, script, maxInFlight, maxBatchSize, limiterName -> "");
    }

    /** @param masterOf the master a limiter's calls go to: calls of different masters never share a send slot */
    AcquirePipeline(RedissonClient redisson, AcquireScript script, int maxInFlight, int maxBatchSize,
            UnaryOperator<String> masterOf) {
        if (maxInFlight < 0 || maxBatchSize < 1) {
            throw new IllegalArgumentException("maxInFlight must be >= 0 and maxBatchSize >= 1 but were "
                    + maxInFlight + " and " + maxBatchSize);
        }
        this.redisson = redisson;
        this.script = script;
        this.maxInFlight = maxInFlight;
        this.maxBatchSize = maxBatchSize;
        this.direct = redisson.getScript(StringCodec.INSTANCE);
        this.masterOf = masterOf;
    }

    /** Takes {@code permits} from the limiter, declared as {@code spec}; {@code check} says what to make of its stored config. */
    CompletableFuture<AcquireScript.Reply> acquire(String limiterName, long permits, LimitSpec spec,
            AcquireScript.ConfigCheck check) {
        Call call = new Call(limiterName, permits, spec, check, new CompletableFuture<>());
        if (maxInFlight == 0) {
            sends.increment();
            send(direct, call);
            return call.result;
        }
        String master = masterOf.apply(limiterName);
        Lane lane = lanes.get(master);
        if (lane == null) {
            lane = lanes.computeIfAbsent(master, ignored -> new Lane());
        }
        lane.queue.add(call);
        lane.drain();
        return call.result;
    }

    /** One master's queue and sends in flight. */
    private final class Lane {

        private final ConcurrentLinkedQueue<Call> queue = new ConcurrentLinkedQueue<>();
        private final AtomicInteger inFlight = new AtomicInteger();

        private void drain() {
            while (!queue.isEmpty()) {
                int sending = inFlight.get();
                if (sending >= maxInFlight) {
                    return; // the send that frees a slot drains again
                }
                if (!inFlight.compareAndSet(sending, sending + 1)) {
                    continue;
                }
                List<Call> calls = takeQueued();
                if (calls.isEmpty()) {
                    inFlight.decrementAndGet();
                    continue;
                }
                sendAll(calls);
            }
        }

        private List<Call> takeQueued() {
            List<Call> calls = new ArrayList<>(Math.min(maxBatchSize, 16));
            Call call;
            while (calls.size() < maxBatchSize && (call = queue.poll()) != null) {
                if (!call.result.isDone()) {
                    calls.add(call);
                }
            }
            return calls;
        }

        private void sendAll(List<Call> calls) {
            sends.increment();
            Slot slot = new Slot(calls.size());
            for (Call call : calls) {
                call.result.whenComplete((reply, ex) -> slot.callDone());
            }
            try {
                if (calls.size() == 1) {
                    send(direct, calls.get(0)); // its answer completes the call, which frees the slot
                }
                else {
                    RBatch batch = redisson.createBatch();
                    RScriptAsync scripts = batch.getScript(StringCodec.INSTANCE);
                    for (Call call : calls) {
                        send(scripts, call);
                    }
                    batch.executeAsync().whenComplete((replies, ex) -> slot.release());
                }
            }
            catch (RuntimeException | Error ex) {
                calls.forEach(call -> call.result.completeExceptionally(ex));
                slot.release();
            }
        }

        /** One send's place among the {@code maxInFlight}: freed once, by Redis's answer or by the last caller leaving. */
        private final class Slot {

            private final AtomicInteger pendingCalls;
            private final AtomicBoolean released = new AtomicBoolean();

            Slot(int calls) {
                this.pendingCalls = new AtomicInteger(calls);
            }

            void callDone() {
                if (pendingCalls.decrementAndGet() == 0) {
                    release();
                }
            }

            void release() {
                if (released.compareAndSet(false, true)) {
                    inFlight.decrementAndGet();
                    drain();
                }
            }
        }
    }

    /** Round trips made so far: single calls and pipelines. */
    long sends() {
        return sends.sum();
    }

    /** Relays Redis's answer to the call, and the caller giving up to Redisson (which then stops retrying it). */
    private void send(RScriptAsync target, Call call) {
        String name = call.limiterName;
        CompletableFuture<List<Object>> reply = target.<List<Object>>evalAsync(name, RScript.Mode.READ_WRITE,
                LuaScripts.ACQUIRE, RedissonCompatibility.LIST, script.keys(name),
                script.argument(call.permits, call.spec, call.check)).toCompletableFuture();
        reply.whenComplete((values, ex) -> {
            if (ex != null) {
                call.result.completeExceptionally(ex);
            }
            else {
                try {
                    call.result.complete(AcquireScript.Reply.parse(values));
                }
                catch (RuntimeException parseError) {
                    call.result.completeExceptionally(parseError);
                }
            }
        });
        call.result.whenComplete((millis, ex) -> {
            if (call.result.isCancelled()) {
                reply.cancel(false);
            }
        });
    }

    private record Call(String limiterName, long permits, LimitSpec spec, AcquireScript.ConfigCheck check,
            CompletableFuture<AcquireScript.Reply> result) {
    }
}
