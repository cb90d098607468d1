package io.github.redissonratelimit.lease;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.BackendOptions;
import io.github.redissonratelimit.redis.ConfigChangePolicy;
import io.github.redissonratelimit.redis.LimiterClock;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.FreshRedis;

/**
 * A leased limit whose algorithm changes while a lease is out (a deployment, an override), under {@code update}:
 * the new algorithm counts the lease's permits as taken, the unspent ones included (its holder may still spend them
 * until the lease ends), so the change never grants them twice. On a clock the test holds still.
 */
class LeaseAlgorithmChangeTest {

    private static final Duration MINUTE = Duration.ofMinutes(1);
    private static final Duration LEASE = Duration.ofSeconds(6);

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final String name = new LimiterNaming().limiterName("lease:switch");
    private final InstantSource clock = () -> Instant.ofEpochMilli(1_700_000_040_000L + 10_000);

    /** A backend of its own (one that has checked no spec yet), on {@code client}. */
    private RedissonRateLimitBackend backend(RedissonClient client) {
        return new RedissonRateLimitBackend(client,
                new BackendOptions(1_000, Duration.ofHours(1), ConfigChangePolicy.UPDATE)
                        .withClock(LimiterClock.CLIENT), clock);
    }

    /** 10 per minute; a token bucket of 10 (a lease of 6 s is one permit's time of it). */
    private static List<LimitSpec> tenPerMinute() {
        return List.of(new LimitSpec(10, MINUTE, RateLimitMode.OVERALL, LimitAlgorithm.SLIDING_WINDOW),
                new LimitSpec(10, MINUTE, RateLimitMode.OVERALL, LimitAlgorithm.tokenBucket(10)),
                new LimitSpec(10, MINUTE, RateLimitMode.OVERALL, LimitAlgorithm.fixedWindow()),
                new LimitSpec(10, MINUTE, RateLimitMode.OVERALL, LimitAlgorithm.IN_FLIGHT));
    }

    @Test
    void theNewAlgorithmCountsALeaseOutAsTaken() {
        RedissonClient client = fresh.newClient();
        for (LimitSpec from : tenPerMinute().subList(0, 3)) {
            for (LimitSpec to : tenPerMinute()) {
                if (to.equals(from)) {
                    continue;
                }
                fresh.endpoint().command("FLUSHALL");
                RedissonRateLimitBackend old = backend(client);
                Decision lease = old.acquire(new AcquireRequest(name, from, 1, BackendErrorPolicy.DENY, false,
                        Duration.ZERO, null, new AcquireRequest.Lease(LEASE, 4))).toCompletableFuture().join();
                assertThat(lease.leased()).as("%s: a lease of 4 (half of what it can give, at most)", from)
                        .isEqualTo(3);
                assertThat(acquire(old, name, from, 1).allowed()).isTrue();
                assertThat(acquire(old, name, from, 1).allowed()).isTrue();

                RedissonRateLimitBackend changed = backend(client);
                // the change is applied by the full decision script, which makes a plain grant of a call that asks
                // a lease (the grant id after the lease's argument read as such)
                Decision first = changed.acquire(new AcquireRequest(name, to, 1, BackendErrorPolicy.DENY, false,
                        Duration.ZERO, null, new AcquireRequest.Lease(LEASE, 4))).toCompletableFuture().join();
                assertThat(first.allowed()).as("%s -> %s", from.algorithm(), to.algorithm()).isTrue();
                assertThat(first.leased()).isZero();
                long allowed = 1 + IntStream.range(0, 9).filter(i -> acquire(changed, name, to, 1).allowed()).count();
                // 6 out, the lease's 3 unspent among them (a bucket's lease holds one permit's time more)
                assertThat(allowed).as("%s -> %s: a lease of 4 and 2 grants out of 10", from.algorithm(),
                        to.algorithm()).isBetween(3L, 4L);
            }
        }
    }
}
