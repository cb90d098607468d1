package io.github.redissonratelimit.contract;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.contract.Algorithm.Limit;
import io.github.redissonratelimit.contract.Ledger.Grant;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Completions;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.naming.LimiterNaming;

/**
 * The calls of a run, each sent without blocking (a stalled Redis does not slow the load down) and written to the
 * {@link Ledger} when its caller keeps what it was granted, with the range of Redis's clock between the send and the
 * answer. Every request is under the {@code local} outage policy, the default. Calls that give their grant back: a
 * charge-by-outcome condition that does not hold, a call with two limits of which one refuses, a wait the caller
 * cancels.
 */
final class Calls {

    private final Ledger ledger;
    private final RedisTime time;
    private final LimiterNaming naming = new LimiterNaming();
    private final Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
    private final AtomicInteger pending = new AtomicInteger();

    Calls(Ledger ledger, RedisTime time) {
        this.ledger = ledger;
        this.time = time;
    }

    String limiterName(String key) {
        return naming.limiterName(key);
    }

    private AcquireRequest request(String key, Limit limit, long permits) {
        return new AcquireRequest(limiterName(key), limit.spec(), permits, BackendErrorPolicy.LOCAL, false,
                Duration.ZERO);
    }

    /** A call that keeps what it is granted. */
    void plain(Instance instance, String key, Limit limit, long permits) {
        long from = from();
        AcquireRequest request = request(key, limit, permits);
        track(instance.stack.acquire(request), "plain",
                decision -> keep(instance, key, limit, permits, from, decision, "p"));
    }

    /** A call whose charge-by-outcome condition is known {@code after} its grant: kept or given back. */
    void chargedWhen(Instance instance, String key, Limit limit, long permits, boolean holds, Duration after) {
        long from = from();
        AcquireRequest request = request(key, limit, permits);
        track(instance.stack.acquire(request), holds ? "charged" : "refunded", decision -> {
            if (holds) {
                keep(instance, key, limit, permits, from, decision, "c");
            }
            else if (decision.allowed()) {
                later(after).execute(() -> giveBack(instance, key, request, decision, from));
            }
        });
    }

    /** A call with a second limit, both asked together in the order given: kept only when both grant. */
    void twoLimits(Instance instance, String key, Limit limit, long permits, String otherKey, Limit other,
            boolean otherFirst) {
        long from = from();
        AcquireRequest mine = request(key, limit, permits);
        AcquireRequest theirs = request(otherKey, other, 1);
        List<AcquireRequest> requests = otherFirst ? List.of(theirs, mine) : List.of(mine, theirs);
        List<CompletionStage<Decision>> asked = instance.stack.acquireAll(requests);
        CompletableFuture<?>[] all = asked.stream().map(CompletionStage::toCompletableFuture)
                .map(stage -> stage.exceptionally(ex -> Decision.reject(Duration.ZERO)))
                .toArray(CompletableFuture[]::new);
        pending.incrementAndGet();
        CompletableFuture.allOf(all).whenComplete((ignored, ex) -> {
            try {
                boolean passed = all.length == requests.size();
                for (CompletableFuture<?> decision : all) {
                    passed &= ((Decision) decision.join()).allowed();
                }
                count(passed ? "two limits passed" : "two limits refused");
                for (int i = 0; i < all.length; i++) {
                    Decision decision = (Decision) all[i].join();
                    if (passed) {
                        AcquireRequest request = requests.get(i);
                        boolean isMine = request == mine;
                        keep(instance, isMine ? key : otherKey, isMine ? limit : other, request.permits(), from,
                                decision, "m");
                    }
                    else if (decision.allowed()) {
                        AcquireRequest request = requests.get(i);
                        giveBack(instance, request == mine ? key : otherKey, request, decision, from);
                    }
                }
            }
            finally {
                pending.decrementAndGet();
            }
        });
    }

    /** A call that may wait up to {@code wait} for its permits. */
    CompletableFuture<Decision> waiting(Instance instance, String key, Limit limit, long permits, Duration wait) {
        long from = from();
        CompletableFuture<Decision> waiting = instance.stack.acquire(request(key, limit, permits).waitingUpTo(wait))
                .toCompletableFuture();
        track(waiting, "waited", decision -> keep(instance, key, limit, permits, from, decision, "w"));
        return waiting;
    }

    /** A call that may wait up to {@code wait} for its permits; its caller gives up after {@code cancelAfter}. */
    void waitingCancelled(Instance instance, String key, Limit limit, long permits, Duration wait,
            Duration cancelAfter) {
        CompletableFuture<Decision> waiting = waiting(instance, key, limit, permits, wait);
        later(cancelAfter).execute(() -> waiting.cancel(false));
    }

    /** Gives a grant back, written down with when it was given back: see {@link Ledger#losses}. */
    private void giveBack(Instance instance, String key, AcquireRequest request, Decision granted, long grantFrom) {
        long from = from();
        instance.stack.release(request, granted).whenComplete((done, ex) -> ledger.gaveBack(
                new Ledger.Refund(key, request.permits(), grantFrom, from, time.now() + time.errorMicros())));
    }

    /** {@code how}: the kind of call, then L when granted in memory, then {@code @} and the instance's label. */
    private void keep(Instance instance, String key, Limit limit, long permits, long from, Decision decision,
            String how) {
        if (decision.allowed()) {
            ledger.kept(new Grant(key, limit, permits, from, time.now() + time.errorMicros(),
                    (decision.local() ? how + "L" : how) + "@" + instance.label));
        }
    }

    private void track(CompletionStage<Decision> stage, String kind, java.util.function.Consumer<Decision> answered) {
        pending.incrementAndGet();
        stage.whenComplete((decision, ex) -> {
            try {
                if (ex != null) {
                    count(kind + " " + Completions.unwrap(ex).getClass().getSimpleName());
                    return;
                }
                count(kind + (decision.allowed() ? " granted" : " refused") + (decision.local() ? " in memory" : ""));
                answered.accept(decision);
            }
            finally {
                pending.decrementAndGet();
            }
        });
    }

    private long from() {
        return time.now() - time.errorMicros();
    }

    private void count(String outcome) {
        outcomes.computeIfAbsent(outcome, k -> new AtomicInteger()).incrementAndGet();
    }

    private static Executor later(Duration delay) {
        return CompletableFuture.delayedExecutor(delay.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Waits until every call sent has its answer (the give-backs scheduled may still be under way). */
    void awaitAnswers(Duration atMost) throws InterruptedException {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (pending.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    /** How the calls ended, e.g. {@code plain granted=12}. */
    Map<String, Integer> outcomes() {
        Map<String, Integer> counts = new java.util.TreeMap<>();
        outcomes.forEach((outcome, count) -> counts.put(outcome, count.get()));
        return counts;
    }
}
