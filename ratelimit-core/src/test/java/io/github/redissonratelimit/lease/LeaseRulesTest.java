package io.github.redissonratelimit.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.FreshRedis;

/**
 * The lease rules of the token bucket and the fixed window, each at the moment where the wrong rule lets more through
 * than the law (the contract suite checks them under load: {@code AlgorithmContract}).
 */
class LeaseRulesTest {

    private static final Duration LEASE = Duration.ofMillis(100);

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();

    /**
     * A bucket of 40, 200 per second (a lease of 100 ms is 20 permits' time): a lease on the full bucket, all of it
     * spent 50 ms later (while it runs), at once with everything the bucket then grants, stays within burst + rate ×
     * T. Stamped at its start instead, the lease takes 20 and the bucket refills 10 meanwhile: 50 at once.
     */
    @Test
    void aBucketAndTheLeaseItGaveHoldNoMoreThanTheBurstWhileTheLeaseRuns() throws Exception {
        long burst = 40;
        double microsPerPermit = 5_000;
        LimitSpec spec = new LimitSpec(200, Duration.ofSeconds(1), RateLimitMode.OVERALL,
                LimitAlgorithm.tokenBucket(burst));
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(fresh.newClient());
        for (int attempt = 0; attempt < 3; attempt++) {
            String name = new LimiterNaming().limiterName("lease:bucket:" + attempt);
            // connected and the scripts loaded, so that the lease's call is one round trip
            acquire(backend, request(name + ":warm", spec, 1, new AcquireRequest.Lease(LEASE, 2)));
            long sent = System.nanoTime();
            Decision lease = acquire(backend, request(name, spec, 1, new AcquireRequest.Lease(LEASE, burst)));
            assertThat(lease.allowed()).isTrue();
            long held = 1 + lease.leased();
            TimeUnit.NANOSECONDS.sleep(sent + TimeUnit.MILLISECONDS.toNanos(50) - System.nanoTime());
            long from = System.nanoTime();
            if (from - sent >= LEASE.toNanos()) {
                continue; // the lease ended meanwhile (a slow machine): none of it may be spent now
            }
            // all the bucket grants now, in as few calls as it takes: what a refusal says is free, then again
            long granted = 0;
            long asked = burst;
            while (asked > 0) {
                Decision decision = acquire(backend, request(name, spec, asked, null));
                granted += decision.allowed() ? asked : 0;
                asked = decision.allowed() ? asked : decision.state().available();
            }
            double spanMicros = (System.nanoTime() - from) / 1_000.0;
            assertThat(held + granted).as("the lease's %d spent at once with the bucket's %d within %.0f µs", held,
                    granted, spanMicros).isLessThanOrEqualTo((long) (burst + spanMicros / microsPerPermit));
            assertThat(granted).as("the bucket refilled meanwhile").isGreaterThan(0);
            // half of what the full bucket could give with the lease's time stamped ahead: (40 - 20) / 2
            assertThat(held).isEqualTo(10);
            return;
        }
        assumeTrue(false, "no lease still running 50 ms after its send in three tries");
    }

    /**
     * A lease's unspent permits go back by its receipt: to a bucket the time they would have held it (nothing that
     * refilled), to a fixed window its count while the window lasts. Without the refund the bucket would hold about
     * 10 free and the window 79.
     */
    @Test
    void aLeasesUnspentPermitsGoBack() throws Exception {
        RedissonClient client = fresh.newClient();
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);
        LimitSpec bucket = new LimitSpec(200, Duration.ofSeconds(1), RateLimitMode.OVERALL,
                LimitAlgorithm.tokenBucket(40));
        LimitSpec window = new LimitSpec(100, Duration.ofSeconds(1), RateLimitMode.OVERALL,
                LimitAlgorithm.fixedWindow());
        long inWindow = redisMillis(client) % 1_000;
        if (inWindow > 700) {
            TimeUnit.MILLISECONDS.sleep(1_005 - inWindow); // the window's lease and its refund in one window
        }
        for (LimitSpec spec : List.of(bucket, window)) {
            String name = new LimiterNaming().limiterName("lease:unspent:" + spec.algorithm());
            Decision lease = acquire(backend, request(name, spec, 1, new AcquireRequest.Lease(LEASE, 20)));
            assertThat(lease.leased()).as("%s", spec.algorithm()).isGreaterThan(0);
            backend.release(AcquireRequest.of(name, spec, lease.leased()),
                    new Decision(true, Duration.ZERO, null, false, lease.receipt())).toCompletableFuture()
                    .get(5, TimeUnit.SECONDS);
            Decision after = acquire(backend, request(name, spec, 1, null));
            // bucket: 40 - (100 ms + 10 permits' time) / 5 ms = 10 free after the lease, 19 after its 9 back
            // window: 100 - 20 after the lease, 99 after its 19 back
            assertThat(after.state().available()).as("%s: free after the unspent went back", spec.algorithm())
                    .isGreaterThanOrEqualTo(spec.algorithm().equals(bucket.algorithm()) ? 17 : 97);
        }
    }

    private static Decision acquire(RedissonRateLimitBackend backend, AcquireRequest request) throws Exception {
        return backend.acquire(request).toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    /**
     * A fixed window's lease taken 60 ms before the window ends is spent no later than that end: a call 10 ms after
     * it goes to Redis (counted in the new window), though the lease period has 30 ms to run. Not clipped, the lease's
     * permits would be spent in the next window on top of its rate.
     */
    @Test
    void aFixedWindowsLeaseEndsWithItsWindow() throws Exception {
        LimitSpec spec = new LimitSpec(1_000, Duration.ofSeconds(1), RateLimitMode.OVERALL,
                LimitAlgorithm.fixedWindow());
        String name = new LimiterNaming().limiterName("lease:window");
        RedissonClient client = fresh.newClient();
        LeasingRateLimitBackend backend = new LeasingRateLimitBackend(new RedissonRateLimitBackend(client));
        AcquireRequest request = request(name, spec, 1, new AcquireRequest.Lease(LEASE, 0));
        for (int attempt = 0; attempt < 3; attempt++) {
            TimeUnit.MILLISECONDS.sleep(Math.floorMod(940 - redisMillis(client) % 1_000, 1_000));
            for (int i = 0; i < 3 && Held.permits(backend, name) == 0; i++) {
                assertThat(backend.acquire(request).toCompletableFuture().get(5, TimeUnit.SECONDS).allowed())
                        .isTrue();
            }
            long inWindow = redisMillis(client) % 1_000;
            if (Held.permits(backend, name) == 0 || inWindow < 900) {
                continue; // the lease came after the window's end (a slow machine): again in the next one
            }
            TimeUnit.MILLISECONDS.sleep(1_010 - inWindow);
            long calls = backend.redisCalls();
            assertThat(backend.acquire(request).toCompletableFuture().get(5, TimeUnit.SECONDS).allowed()).isTrue();
            assertThat(backend.redisCalls()).as("a call after the lease's window ended goes to Redis")
                    .isEqualTo(calls + 1);
            backend.close();
            return;
        }
        backend.close();
        assumeTrue(false, "no lease taken in the last 100 ms of a window in three tries");
    }

    private static long redisMillis(RedissonClient client) {
        Long millis = client.getScript(StringCodec.INSTANCE).eval(RScript.Mode.READ_ONLY,
                "local t = redis.call('time') return t[1] * 1000 + math.floor(t[2] / 1000)", RScript.ReturnType.LONG);
        return millis;
    }

    private static AcquireRequest request(String name, LimitSpec spec, long permits, AcquireRequest.Lease lease) {
        return new AcquireRequest(name, spec, permits, BackendErrorPolicy.DENY, false, Duration.ZERO, null, lease);
    }
}
