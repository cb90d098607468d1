package io.github.redissonratelimit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * A lease's life on a real Redis: its unspent permits come back at its end; an instance that stops without giving
 * them back keeps them out only until its grant leaves the window (under-admission, never more); a hot limit makes
 * few script calls per decision.
 */
class LeaseLifecycleTest {

    private static final LimitSpec SPEC = new LimitSpec(1_000, Duration.ofSeconds(1), RateLimitMode.OVERALL);

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();
    private final String name = new LimiterNaming().limiterName("lease:life");

    @Test
    void unspentPermitsComeBackAtTheLeaseEnd() throws Exception {
        RedissonRateLimitBackend plain = new RedissonRateLimitBackend(fresh.newClient());
        LeasingRateLimitBackend leasing = new LeasingRateLimitBackend(new RedissonRateLimitBackend(fresh.newClient()));
        long spent = spendUntilALeaseIsHeld(leasing);
        long held = Held.permits(leasing, name);
        assertThat(free(plain)).isEqualTo(SPEC.rate() - spent - held);
        awaitFree(plain, SPEC.rate() - spent, 3_000);
        assertThat(Held.permits(leasing, name)).isZero();
        assertThat(free(plain)).isEqualTo(SPEC.rate() - spent);
    }

    @Test
    void anInstanceThatStopsLosesAtMostItsUnspentLeaseUntilItsGrantLeavesTheWindow() throws Exception {
        RedissonRateLimitBackend plain = new RedissonRateLimitBackend(fresh.newClient());
        RedissonClient stopping = fresh.newClient();
        LeasingRateLimitBackend leasing = new LeasingRateLimitBackend(new RedissonRateLimitBackend(stopping));
        long spent = spendUntilALeaseIsHeld(leasing);
        long held = Held.permits(leasing, name);
        stopping.shutdown(); // its lease's end finds no Redis: nothing is given back
        assertThat(free(plain)).isEqualTo(SPEC.rate() - spent - held);
        // never more than the rate: every permit comes back, once, when its grant leaves the window
        awaitFree(plain, SPEC.rate(), 5_000);
        assertThat(free(plain)).isEqualTo(SPEC.rate());
    }

    @Test
    void aHotLimitMakesFewScriptCallsPerDecision() throws Exception {
        LimitSpec hot = new LimitSpec(1_000_000, Duration.ofSeconds(1), RateLimitMode.OVERALL);
        LeasingRateLimitBackend leasing = new LeasingRateLimitBackend(new RedissonRateLimitBackend(fresh.newClient()));
        leasing.acquire(LeaseLawTest.request(name, hot, 1)).toCompletableFuture().get(5, TimeUnit.SECONDS);
        CommandStats before = CommandStats.read(redis.cli());
        int decisions = 20_000;
        int allowed = 0;
        for (int i = 0; i < decisions; i++) {
            if (leasing.acquire(LeaseLawTest.request(name, hot, 1)).toCompletableFuture().get(5, TimeUnit.SECONDS)
                    .allowed()) {
                allowed++;
            }
        }
        CommandStats after = CommandStats.read(redis.cli());
        long scriptCalls = after.calls("evalsha") + after.calls("eval") - before.calls("evalsha")
                - before.calls("eval");
        double perDecision = (double) scriptCalls / decisions;
        System.out.printf("[lease-calls] %d decisions, %d allowed, %d script calls (%.4f per decision), "
                + "lease hits %d%n", decisions, allowed, scriptCalls, perDecision, leasing.leaseHits());
        assertThat(allowed).isEqualTo(decisions);
        assertThat(perDecision).isLessThan(0.05);
        leasing.close();
    }

    /** Spends one permit at a time until the instance holds a lease of several; returns the permits spent. */
    private long spendUntilALeaseIsHeld(LeasingRateLimitBackend leasing) throws Exception {
        long spent = 0;
        while (Held.permits(leasing, name) < 2) {
            assertThat(leasing.acquire(LeaseLawTest.request(name, SPEC, 1)).toCompletableFuture()
                    .get(5, TimeUnit.SECONDS).allowed()).isTrue();
            spent++;
            assertThat(spent).as("spends before a lease was held").isLessThan(100);
        }
        return spent;
    }

    private long free(RedissonRateLimitBackend backend) throws Exception {
        return backend.state(name, SPEC).toCompletableFuture().get(5, TimeUnit.SECONDS).available();
    }

    private void awaitFree(RedissonRateLimitBackend backend, long expected, long timeoutMillis) throws Exception {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (free(backend) != expected && System.nanoTime() - end < 0) {
            Thread.sleep(20);
        }
    }
}
