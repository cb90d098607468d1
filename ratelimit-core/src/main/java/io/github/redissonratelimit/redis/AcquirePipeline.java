package io.github.redissonratelimit.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RScriptAsync;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * Sends {@link AcquireScript} calls to Redis, several at a time in one pipeline (a Redisson batch) when
 * they come in faster than Redis answers.
 *
 * <p>A call goes out at once while fewer than {@code maxInFlight} sends are waiting for Redis; otherwise
 * it waits in a queue, and the next free send takes everything queued (up to {@code maxBatchSize}) in one
 * write. Alone, a call costs exactly what a plain script call costs; under concurrency, Redis and the
 * client read and write many calls per system call instead of one each, which is what their CPU goes to
 * (see {@code docs/performance.md}). Each call remains its own script call, answered on its own, except the
 * decisions of one rate limited call ({@link #acquireTogether}): those whose limiters' keys share a slot (all of
 * them, off a Redis Cluster) go as one {@code acquire-many.lua} call ({@link AcquireCommands}), which decides each
 * as its own call would.
 *
 * <p>A send occupies its slot until Redis answered or every caller in it gave up (cancelled its future,
 * as the outage deadline does), so that a Redis outage does not keep slots busy for Redisson's whole retry
 * time once Redis is back. A call cancelled while queued is never sent; one cancelled after it was sent alone is
 * cancelled in Redisson too, which stops Redisson's retries of it where Redisson links the two (not for
 * script calls with its script cache on, Redisson's default: see {@code RedissonRateLimitBackend}); one sent in a
 * batch is left to finish with its batch (see {@code Lane.uncancellable}). With
 * {@link LimiterClock#CLIENT} the time stamp of a grant is read when its call is sent, not when it was queued;
 * by default Redis stamps it when the script runs.
 *
 * <p>On a Redis Cluster each master has its own {@code maxInFlight} sends and its own queue ({@code masterOf}),
 * so that the calls waiting for a dead master until their deadline cannot hold up the calls to the others.
 */
final class AcquirePipeline {

    private final RedissonClient redisson;
    private final AcquireCommands commands;
    private final boolean cluster;
    private final int maxInFlight;
    private final int maxBatchSize;
    private final RScript direct;
    private final UnaryOperator<String> masterOf;
    private final ConcurrentMap<String, Lane> lanes = new ConcurrentHashMap<>();

    /**
     * @param maxInFlight sends that may wait for Redis at once; 0 sends every call on its own at once
     * @param maxBatchSize most calls in one send
     * @param masterOf the master a limiter's calls go to: calls of different masters never share a send slot
     * @param cluster whether Redis is a Redis Cluster, where only limiters of one slot share a script call
     */
    AcquirePipeline(RedissonClient redisson, AcquireScript script, int maxInFlight, int maxBatchSize,
            UnaryOperator<String> masterOf, boolean cluster) {
        if (maxInFlight < 0 || maxBatchSize < 1) {
            throw new IllegalArgumentException("maxInFlight must be >= 0 and maxBatchSize >= 1 but were "
                    + maxInFlight + " and " + maxBatchSize);
        }
        this.redisson = redisson;
        this.cluster = cluster;
        this.maxInFlight = maxInFlight;
        this.maxBatchSize = maxBatchSize;
        this.direct = redisson.getScript(ScriptCodec.INSTANCE);
        this.commands = new AcquireCommands(script, direct);
        this.masterOf = masterOf;
    }

    /** Sends one decision (or queues it for the next pipeline); {@code call}'s result completes with Redis's answer. */
    void acquire(AcquireCall call) {
        dispatch(call);
    }

    /**
     * Sends the decisions of one rate limited call: those whose keys share a slot (all of them, off a Redis
     * Cluster) as one group, which a lane queues and sends as one script call.
     */
    void acquireTogether(List<AcquireCall> calls) {
        try {
            if (calls.size() == 1) {
                dispatch(calls.get(0));
                return;
            }
            SlotGroups.of(calls, cluster).forEach(this::dispatch);
        }
        catch (RuntimeException | Error ex) {
            // no call may be left unanswered
            calls.forEach(call -> call.result().completeExceptionally(ex));
        }
    }

    /** Queues one call or group (or sends it at once without pipelining); the lane sends it when it can. */
    private void dispatch(QueuedAcquire queued) {
        if (maxInFlight == 0) {
            commands.send(direct, queued);
            return;
        }
        Lane lane = laneOf(queued.limiterName());
        lane.queue.add(queued);
        lane.drain();
    }

    private Lane laneOf(String limiterName) {
        String master = masterOf.apply(limiterName);
        Lane lane = lanes.get(master);
        return lane != null ? lane : lanes.computeIfAbsent(master, ignored -> new Lane());
    }

    /** One master's queue and sends in flight. */
    private final class Lane {

        private final ConcurrentLinkedQueue<QueuedAcquire> queue = new ConcurrentLinkedQueue<>();
        private final AtomicInteger inFlight = new AtomicInteger();
        /**
         * Whether the last call answered on this lane failed: until one succeeds, calls go one by one, since a failing
         * master gains nothing from batching. (The argument buffers Redisson 4.7 drops unreleased when a batch fails
         * while it reconnects to a failed master are heap buffers, see {@link ScriptCodec}: they leak nothing.)
         */
        private volatile boolean failing;

        private void drain() {
            while (!queue.isEmpty()) {
                int sending = inFlight.get();
                if (sending >= maxInFlight) {
                    return; // the send that frees a slot drains again
                }
                if (!inFlight.compareAndSet(sending, sending + 1)) {
                    continue;
                }
                List<QueuedAcquire> calls = takeQueued();
                if (calls.isEmpty()) {
                    inFlight.decrementAndGet();
                    continue;
                }
                sendAll(calls);
            }
        }

        /** Up to {@code maxBatchSize} decisions (a group is never split), leaving out those whose callers gave up. */
        private List<QueuedAcquire> takeQueued() {
            List<QueuedAcquire> taken = new ArrayList<>(Math.min(maxBatchSize, 16));
            int calls = 0;
            QueuedAcquire queued;
            while (calls < maxBatchSize && (queued = queue.poll()) != null) {
                QueuedAcquire pending = queued.pending();
                if (pending != null) {
                    taken.add(pending);
                    calls += pending.size();
                }
            }
            return taken;
        }

        private void sendAll(List<QueuedAcquire> taken) {
            int calls = 0;
            for (QueuedAcquire queued : taken) {
                calls += queued.size();
            }
            Slot slot = new Slot(calls);
            BiConsumer<Object, Throwable> callDone = (reply, ex) -> {
                if (failing != (ex != null)) {
                    failing = ex != null; // written on a change only: every answer reads it
                }
                slot.callDone();
            };
            Consumer<AcquireCall> watch = call -> call.result().whenComplete(callDone);
            for (QueuedAcquire queued : taken) {
                queued.forEachCall(watch);
            }
            try {
                if (taken.size() == 1 || failing) {
                    for (QueuedAcquire queued : taken) {
                        commands.send(direct, queued); // their answers complete the calls, which frees the slot
                    }
                }
                else {
                    RBatch batch = redisson.createBatch();
                    RScriptAsync scripts = batch.getScript(ScriptCodec.INSTANCE);
                    for (QueuedAcquire queued : taken) {
                        commands.send(scripts, uncancellable(queued));
                    }
                    batch.executeAsync().whenComplete((replies, ex) -> slot.release());
                }
            }
            catch (RuntimeException | Error ex) {
                taken.forEach(queued -> queued.forEachCall(call -> call.result().completeExceptionally(ex)));
                slot.release();
            }
        }

        /**
         * {@code queued} with results of its own that pass Redis's answers on to the callers' results, so that a
         * caller who gives up does not cancel its command inside the batch. Redisson 4.7 cannot cancel one command of
         * a batch already written: its reply decoder then fails the whole batch with that command's
         * {@link java.util.concurrent.CancellationException}, which Redisson takes for the batch having been
         * cancelled: the batch's future never completes and none of its commands' argument buffers are released (a
         * Netty {@code LEAK} per batch). A batch is retried whole, so cancelling one of its commands would not stop
         * retries anyway.
         */
        private static QueuedAcquire uncancellable(QueuedAcquire queued) {
            if (queued instanceof AcquireCall call) {
                return relayed(call);
            }
            return new AcquireGroup(((AcquireGroup) queued).calls().stream().map(Lane::relayed).toList());
        }

        private static AcquireCall relayed(AcquireCall call) {
            AcquireCall sent = new AcquireCall(call.limiterName(), call.permits(), call.spec(), call.check(),
                    call.waiter(), call.lease(), new CompletableFuture<>());
            sent.result().whenComplete((reply, ex) -> {
                if (ex != null) {
                    call.result().completeExceptionally(ex);
                }
                else {
                    call.result().complete(reply);
                }
            });
            return sent;
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
}
