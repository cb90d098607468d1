package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static io.github.redissonratelimit.limiter.BackendCalls.await;
import static io.github.redissonratelimit.limiter.BackendCalls.state;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.limiter.ReleaseSignals;
import io.github.redissonratelimit.limiter.WaitingRateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.resilience.ResilientRateLimitBackend;
import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.FreshRedis;

/** An in-flight limit on Redis: permits held until given back, leases renewed while held, ended when not. */
class InFlightTest {

    private static final LimitSpec THREE = new LimitSpec(3, Duration.ofSeconds(1), RateLimitMode.OVERALL,
            LimitAlgorithm.IN_FLIGHT);

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final String name = new LimiterNaming().limiterName("export:acme");

    @Test
    void holdsAtMostItsRateUntilACallGivesItsPermitsBack() {
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(fresh.newClient());
        List<Decision> held = List.of(acquire(backend, name, THREE, 1), acquire(backend, name, THREE, 2));
        assertThat(held).allMatch(Decision::allowed);
        assertThat(held.get(1).state().available()).isZero();
        Decision refused = acquire(backend, name, THREE, 1);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfter()).as("no time is known at which a call ends").isZero();
        assertThat(backend.heldLeases()).isEqualTo(2);

        await(backend.release(AcquireRequest.of(name, THREE, 1), held.get(0)));
        assertThat(backend.heldLeases()).isEqualTo(1);
        assertThat(state(backend, name, THREE).available()).isEqualTo(1);
        assertThat(acquire(backend, name, THREE, 1).allowed()).isTrue();
        assertThat(acquire(backend, name, THREE, 1).allowed()).isFalse();
        // a second give-back of the same grant finds nothing to take
        await(backend.release(AcquireRequest.of(name, THREE, 1), held.get(0)));
        assertThat(acquire(backend, name, THREE, 1).allowed()).isFalse();
    }

    @Test
    void theStateTellsWhoHoldsHowMany() {
        RedissonRateLimitBackend first = new RedissonRateLimitBackend(fresh.newClient());
        RedissonRateLimitBackend second = new RedissonRateLimitBackend(fresh.newClient());
        assertThat(state(first, name, THREE).holders()).as("nobody holds any").isEmpty();
        Decision one = acquire(first, name, THREE, 1);
        Decision two = acquire(second, name, THREE, 2);
        assertThat(one.allowed() && two.allowed()).isTrue();

        Map<String, Long> holders = state(first, name, THREE).holders();
        assertThat(holders.values()).as("most first").containsExactly(2L, 1L);
        assertThat(holders.keySet()).allMatch(holder -> holder.startsWith(ProcessHandle.current().pid() + "@"));
        String secondHolder = holders.keySet().iterator().next();
        assertThat(state(second, name, THREE).holders()).as("whoever reads").isEqualTo(holders);

        await(first.release(AcquireRequest.of(name, THREE, 1), one));
        assertThat(state(first, name, THREE).holders()).containsExactly(Map.entry(secondHolder, 2L));
        await(second.release(AcquireRequest.of(name, THREE, 2), two));
        assertThat(state(first, name, THREE).holders()).isEmpty();
    }

    @Test
    void aCallLongerThanManyLeasePeriodsKeepsItsPermits() throws InterruptedException {
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(fresh.newClient());
        LimitSpec one = new LimitSpec(1, Duration.ofSeconds(1), RateLimitMode.OVERALL, LimitAlgorithm.IN_FLIGHT);
        Decision held = acquire(backend, name, one, 1);
        assertThat(held.allowed()).isTrue();
        for (int i = 0; i < 8; i++) {
            Thread.sleep(400);
            assertThat(acquire(backend, name, one, 1).allowed()).as("after %d ms", (i + 1) * 400).isFalse();
        }
        await(backend.release(AcquireRequest.of(name, one, 1), held));
        assertThat(acquire(backend, name, one, 1).allowed()).isTrue();
    }

    @Test
    void theLeasesOfAnInstanceThatStoppedEndOneLeasePeriodAfterItsLastRenewal() throws InterruptedException {
        RedissonClient gone = fresh.newClient();
        RedissonRateLimitBackend stopped = new RedissonRateLimitBackend(gone);
        RedissonRateLimitBackend other = new RedissonRateLimitBackend(fresh.newClient());
        assertThat(acquire(stopped, name, THREE, 3).allowed()).isTrue();
        gone.shutdown(); // its renewals no longer reach Redis, as after kill -9
        long stoppedAt = System.nanoTime();
        assertThat(acquire(other, name, THREE, 1).allowed()).isFalse();
        while (!acquire(other, name, THREE, 3).allowed()) {
            assertThat(Duration.ofNanos(System.nanoTime() - stoppedAt)).as("the permits came back within a lease "
                    + "period of the last renewal").isLessThan(Duration.ofSeconds(5));
            Thread.sleep(50);
        }
        assertThat(stopped.heldLeases()).as("a client shut down renews nothing: its leases are dropped").isZero();
    }

    @Test
    void aChangedRateKeepsTheLeasesUnderTheNewOne() {
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(fresh.newClient());
        assertThat(acquire(backend, name, THREE, 3).allowed()).isTrue();
        LimitSpec five = new LimitSpec(5, Duration.ofSeconds(1), RateLimitMode.OVERALL, LimitAlgorithm.IN_FLIGHT);
        RedissonRateLimitBackend redeployed = new RedissonRateLimitBackend(fresh.newClient());
        assertThat(acquire(redeployed, name, five, 2).allowed()).isTrue();
        assertThat(acquire(redeployed, name, five, 1).allowed()).isFalse();
    }

    @Test
    void aGiveBackWakesTheCallersWaitingOnTheLimiterInTheOrderTheyBeganToWait() throws Exception {
        RedissonClient client = fresh.newClient();
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);
        ReleaseSubscriptions subscriptions = new ReleaseSubscriptions(client);
        Decision held = acquire(backend, name, THREE, 3);
        ReleaseSignals.Signal second = subscriptions.next(name, 1, 2);
        ReleaseSignals.Signal first = subscriptions.next(name, 2, 1);
        ReleaseSignals.Signal third = subscriptions.next(name, 1, 3);
        second.listening().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(List.of(first.released(), second.released(), third.released())).noneMatch(CompletableFuture::isDone);

        await(backend.release(AcquireRequest.of(name, THREE, 3), held));
        // 3 permits back: the first waiter (2) and the next (1) are woken, the third is not
        CompletableFuture.allOf(first.released(), second.released()).get(5, TimeUnit.SECONDS);
        assertThat(third.released()).isNotDone();
        third.released().cancel(false);
        assertThat(subscriptions.limitersWaitedOn()).isZero();
    }

    @Test
    void callersWaitingForAPermitGetItAsCallsGiveThemBack() throws Exception {
        RedissonClient client = fresh.newClient();
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);
        WaitingRateLimitBackend waiting = new WaitingRateLimitBackend(backend, new ReleaseSubscriptions(client));
        LimitSpec one = new LimitSpec(1, Duration.ofSeconds(30), RateLimitMode.OVERALL, LimitAlgorithm.IN_FLIGHT);
        Decision held = acquire(backend, name, one, 1);
        AcquireRequest wait = AcquireRequest.of(name, one, 1).waitingUpTo(Duration.ofSeconds(20));
        CompletableFuture<Decision> waiter = waiting.acquire(wait).toCompletableFuture();
        Thread.sleep(200);
        assertThat(waiter).as("no permit is free yet").isNotDone();
        await(backend.release(AcquireRequest.of(name, one, 1), held));
        Decision got = waiter.get(15, TimeUnit.SECONDS);
        assertThat(got.allowed()).isTrue();
        assertThat(backend.heldLeases()).isEqualTo(1);
        await(backend.release(AcquireRequest.of(name, one, 1), got));
    }

    @Test
    void anInFlightLimitAndARateLimitOfOneCallAreDecidedInOneScriptCall() {
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(fresh.newClient());
        String perMinute = new LimiterNaming().limiterName("export:acme:per-minute");
        LimitSpec twoPerMinute = new LimitSpec(2, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        List<AcquireRequest> call = List.of(AcquireRequest.of(name, THREE, 1),
                AcquireRequest.of(perMinute, twoPerMinute, 1));
        await(backend.acquireAll(List.of(AcquireRequest.of(name + ":warm", THREE, 1), AcquireRequest.of(perMinute
                + ":warm", twoPerMinute, 1))).get(0)); // the script loaded: no NOSCRIPT answer counted below
        CommandStats before = fresh.endpoint().commandStats();
        for (int i = 0; i < 3; i++) {
            List<Decision> decided = backend.acquireAll(call).stream().map(stage -> await(stage)).toList();
            assertThat(decided.get(0).allowed()).isTrue();
            assertThat(decided.get(1).allowed()).as("call %d", i + 1).isEqualTo(i < 2);
        }
        CommandStats sent = fresh.endpoint().commandStats().minus(before);
        assertThat(sent.calls("evalsha") + sent.calls("eval")).as("one script call per call").isEqualTo(3);
        assertThat(backend.heldLeases()).isEqualTo(4);
    }

    /**
     * A decision that comes after its deadline (the caller followed the outage policy) or after the caller cancelled
     * it holds no call: its lease is given back, not renewed for as long as the JVM runs.
     */
    @Test
    void aGrantNoCallerGotIsGivenBack() throws Exception {
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(fresh.newClient());
        RateLimitBackend late = new RateLimitBackend() {
            @Override
            public CompletionStage<Decision> acquire(AcquireRequest request) {
                CompletableFuture<Decision> delayed = new CompletableFuture<>();
                backend.acquire(request).whenComplete((decision, ex) -> CompletableFuture.delayedExecutor(300,
                        TimeUnit.MILLISECONDS).execute(() -> delayed.complete(decision)));
                return delayed;
            }

            @Override
            public CompletionStage<Void> release(AcquireRequest request, Decision granted) {
                return backend.release(request, granted);
            }
        };
        ResilientRateLimitBackend resilient = new ResilientRateLimitBackend(late, Duration.ofMillis(50), 100,
                Duration.ofSeconds(1));
        assertThatThrownBy(() -> await(resilient.acquire(AcquireRequest.of(name, THREE, 2))))
                .isInstanceOf(RateLimitBackendUnavailableException.class);
        CompletableFuture<Decision> cancelled = backend.acquire(AcquireRequest.of(name, THREE, 1));
        cancelled.cancel(false);

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((backend.heldLeases() > 0 || state(backend, name, THREE).available() < 3)
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(backend.heldLeases()).as("leases renewed").isZero();
        assertThat(state(backend, name, THREE).available()).as("permits free in Redis").isEqualTo(3);
    }
}
