package io.github.redissonratelimit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.BackendOptions;
import io.github.redissonratelimit.redis.ConfigChangePolicy;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * A lease's grant is stamped at the lease's end and counts until one interval past it, so the limiter's keys must
 * live that long: a renewal the scripts force (a config written by a change, a lost counter recounted) must not cut
 * their lifetime below it. Keys that live only the interval (the shortest key TTL) and a lease of 1 s on a window of
 * 10 s, whose slices are 10 ms: the keys' lifetime before this held 990 ms less than the lease's grant needs.
 */
class LeaseKeyLifetimeTest {

    private static final LimitSpec SPEC = new LimitSpec(1_000, Duration.ofSeconds(10), RateLimitMode.OVERALL);
    private static final Duration LEASE = Duration.ofSeconds(1);

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();
    private final String name = new LimiterNaming().limiterName("lease:ttl");

    private RedissonRateLimitBackend backend() {
        return new RedissonRateLimitBackend(fresh.newClient(),
                new BackendOptions(1_000, Duration.ofMillis(1), ConfigChangePolicy.UPDATE));
    }

    @Test
    void aConfigChangeKeepsTheKeysUntilTheLeasesGrantLeavesTheWindow() throws Exception {
        LeasingRateLimitBackend leasing = new LeasingRateLimitBackend(backend());
        holdALease(leasing);

        LimitSpec changed = new LimitSpec(900, SPEC.interval(), RateLimitMode.OVERALL);
        assertThat(backend().acquire(AcquireRequest.of(name, changed, 1)).toCompletableFuture()
                .get(5, TimeUnit.SECONDS).allowed()).isTrue();

        assertThat(redis.command("HGET", "rate_limit:{lease:ttl}", "rate")).hasToString("900");
        assertKeysLiveUntilTheLeaseGrantLeaves();
    }

    @Test
    void aLostCounterKeepsTheKeysUntilTheLeasesGrantLeavesTheWindow() throws Exception {
        LeasingRateLimitBackend leasing = new LeasingRateLimitBackend(backend());
        holdALease(leasing);
        List<String> counters = redis.keys("rate_limit:{lease:ttl}:value*");
        assertThat(counters).isNotEmpty();
        counters.forEach(counter -> redis.command("DEL", counter));

        assertThat(backend().acquire(AcquireRequest.of(name, SPEC, 1)).toCompletableFuture()
                .get(5, TimeUnit.SECONDS).allowed()).isTrue();

        assertKeysLiveUntilTheLeaseGrantLeaves();
    }

    private void holdALease(LeasingRateLimitBackend leasing) throws Exception {
        for (int spent = 0; Held.permits(leasing, name) < 2; spent++) {
            assertThat(spent).as("spends before a lease was held").isLessThan(100);
            AcquireRequest request = LeaseLawTest.request(name, SPEC, 1).withLease(new AcquireRequest.Lease(LEASE, 0));
            assertThat(leasing.acquire(request).toCompletableFuture().get(5, TimeUnit.SECONDS).allowed()).isTrue();
        }
    }

    /** Every key of the limiter expires no sooner than the newest grant (the lease's, stamped ahead) leaves. */
    private void assertKeysLiveUntilTheLeaseGrantLeaves() {
        try (RespClient cli = redis.cli()) {
            String grants = redis.keys("rate_limit:{lease:ttl}*").stream()
                    .filter(key -> "zset".equals(String.valueOf(cli.command("TYPE", key)))).findFirst().orElseThrow();
            List<Object> newest = cli.list("ZRANGE", grants, "-1", "-1", "WITHSCORES");
            long leaseEnd = Long.parseLong(String.valueOf(newest.get(1)));
            long leaves = leaseEnd + SPEC.interval().toMillis();
            for (String key : redis.keys("rate_limit:{lease:ttl}*")) {
                long ttl = Long.parseLong(String.valueOf(cli.command("PTTL", key)));
                List<Object> time = cli.list("TIME"); // read after the TTL: expiry <= now + ttl
                long now = Long.parseLong(String.valueOf(time.get(0))) * 1000
                        + Long.parseLong(String.valueOf(time.get(1))) / 1000;
                assertThat(now + ttl).as("%s expires at (Redis ms) vs the lease's grant leaving at %d", key, leaves)
                        .isGreaterThanOrEqualTo(leaves);
            }
        }
    }
}
