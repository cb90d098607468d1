package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static io.github.redissonratelimit.limiter.BackendCalls.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.ReleaseSignals;
import io.github.redissonratelimit.limiter.WaitingRateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.FreshRedis;

/**
 * Callers waiting for an in-flight limit's permits get them in the order of their first refusal, across instances:
 * Redis keeps the line in the limiter's state, so a later caller (waiting or not, on any instance) never takes a
 * permit an earlier waiter asked for.
 */
class InFlightLineTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final String name = new LimiterNaming().limiterName("export:line");
    private RedissonClient reader;

    private static final String LISTED = "local t = redis.call('time') local now = t[1] * 1000 + math.floor(t[2] / 1000) "
            + "local n = 0 for ends in string.gmatch(redis.call('get', KEYS[1]) or '', '|[^|:]+:%d+:(%d+)') do "
            + "if tonumber(ends) > now then n = n + 1 end end return n";

    @BeforeEach
    void reader() {
        reader = fresh.newClient();
    }

    private static LimitSpec inFlight(long rate) {
        return new LimitSpec(rate, LEASE, RateLimitMode.OVERALL, LimitAlgorithm.IN_FLIGHT);
    }

    /** An instance: its Redis backend, and its waiting backend woken by give-backs (or not: {@code woken} false). */
    private record Instance(RedissonRateLimitBackend backend, WaitingRateLimitBackend waiting) {
    }

    private Instance instance(boolean woken) {
        RedissonClient client = fresh.newClient();
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);
        return new Instance(backend,
                new WaitingRateLimitBackend(backend, woken ? new ReleaseSubscriptions(client) : ReleaseSignals.NONE));
    }

    private CompletableFuture<Decision> waitFor(Instance instance, LimitSpec spec, long permits, Duration upTo) {
        return instance.waiting().acquire(AcquireRequest.of(name, spec, permits).waitingUpTo(upTo))
                .toCompletableFuture();
    }

    /** The waiters Redis lists for the limiter whose place has not ended by its clock. */
    private long listed() {
        return reader.getScript(StringCodec.INSTANCE).<Long>eval(RScript.Mode.READ_ONLY, LISTED, RedissonCompatibility.LONG,
                List.of(LimiterNaming.valueKey(name)));
    }

    private void awaitListed(int waiters) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long listed;
        while ((listed = listed()) != waiters && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(listed).as("waiters listed").isEqualTo(waiters);
    }

    @Test
    void waitersOfTwoInstancesGetThePermitInTheOrderTheyWereFirstRefused() throws Exception {
        LimitSpec one = inFlight(1);
        Instance a = instance(true);
        Instance b = instance(true);
        Decision held = acquire(a.backend(), name, one, 1);
        List<Instance> byArrival = List.of(a, b, b, a, b);
        List<CompletableFuture<Decision>> waiters = new ArrayList<>();
        for (Instance instance : byArrival) {
            waiters.add(waitFor(instance, one, 1, Duration.ofSeconds(20)));
            awaitListed(waiters.size());
        }

        List<Integer> granted = new ArrayList<>();
        await(a.backend().release(AcquireRequest.of(name, one, 1), held));
        while (granted.size() < waiters.size()) { // a turn may find several granted: each gives back at once
            CompletableFuture.anyOf(waiters.stream().filter(w -> !granted.contains(waiters.indexOf(w)))
                    .toArray(CompletableFuture[]::new)).get(15, TimeUnit.SECONDS);
            for (int i = 0; i < waiters.size(); i++) {
                if (waiters.get(i).isDone() && !granted.contains(i)) {
                    granted.add(i);
                    assertThat(waiters.get(i).get().allowed()).isTrue();
                    await(byArrival.get(i).backend().release(AcquireRequest.of(name, one, 1), waiters.get(i).get()));
                }
            }
        }
        assertThat(granted).as("granted in the order of arrival").containsExactly(0, 1, 2, 3, 4);
    }

    @Test
    void aCallThatDoesNotWaitIsRefusedWhileAnEarlierCallerWaitsForTheFreePermit() throws Exception {
        LimitSpec one = inFlight(1);
        Instance a = instance(false); // asks again each second only: the give-back wakes nobody
        Instance b = instance(true);
        Decision held = acquire(b.backend(), name, one, 1);
        CompletableFuture<Decision> waiter = waitFor(a, one, 1, Duration.ofSeconds(20));
        awaitListed(1);

        await(b.backend().release(AcquireRequest.of(name, one, 1), held));
        Decision later = acquire(b.backend(), name, one, 1);
        assertThat(later.allowed()).as("a permit is free, and an earlier caller waits for it").isFalse();
        assertThat(later.state().available()).as("what it could take").isZero();
        assertThat(waiter.get(15, TimeUnit.SECONDS).allowed()).isTrue();
        assertThat(listed()).isZero();
    }

    @Test
    void aWaiterForTwoPermitsIsNotOvertakenByALaterOneForOne() throws Exception {
        LimitSpec two = inFlight(2);
        Instance a = instance(true);
        Instance b = instance(true);
        Decision first = acquire(a.backend(), name, two, 1);
        Decision second = acquire(a.backend(), name, two, 1);
        CompletableFuture<Decision> forTwo = waitFor(a, two, 2, Duration.ofSeconds(20));
        awaitListed(1);
        CompletableFuture<Decision> forOne = waitFor(b, two, 1, Duration.ofSeconds(20));
        awaitListed(2);

        await(a.backend().release(AcquireRequest.of(name, two, 1), first));
        Thread.sleep(300); // both woken by the give-back, and asked again
        assertThat(forOne).as("one permit is free, but the waiter before it asked for two").isNotDone();
        await(a.backend().release(AcquireRequest.of(name, two, 1), second));
        Decision both = forTwo.get(15, TimeUnit.SECONDS);
        assertThat(both.allowed()).isTrue();
        assertThat(forOne).isNotDone();
        await(a.backend().release(AcquireRequest.of(name, two, 2), both));
        assertThat(forOne.get(15, TimeUnit.SECONDS).allowed()).isTrue();
    }

    @Test
    void aWaiterWhoseWaitEndedOrWasCancelledHoldsNobodyUp() throws Exception {
        LimitSpec one = inFlight(1);
        Instance a = instance(true);
        Decision held = acquire(a.backend(), name, one, 1);
        CompletableFuture<Decision> timedOut = waitFor(a, one, 1, Duration.ofMillis(300));
        CompletableFuture<Decision> cancelled = waitFor(a, one, 1, Duration.ofSeconds(20));
        awaitListed(2);
        assertThat(timedOut.get(10, TimeUnit.SECONDS).allowed()).isFalse();
        cancelled.cancel(false);
        awaitListed(0);

        await(a.backend().release(AcquireRequest.of(name, one, 1), held));
        assertThat(acquire(a.backend(), name, one, 1).allowed()).as("nobody waits any more").isTrue();
    }
}
