package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static io.github.redissonratelimit.limiter.BackendCalls.release;
import static io.github.redissonratelimit.limiter.BackendCalls.state;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisDeployment;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.HeldPermits;

/**
 * The grants of one slice of the window (1/{@value #SLICES} of the interval, at least 1 ms) share one member of the
 * grants ZSET (see {@code common.lua}): a limiter holds no more members than there are slices whatever its rate, so
 * its memory, a recount and a state read (which read every member) are bounded; RRateLimiter still reads and takes
 * from such members, and a refund gives back exactly the permits of its grant.
 */
class SlicedGrantsTest {

    /** {@code SLICES} of {@code common.lua}. */
    static final long SLICES = 1024;

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();
    private final LimiterNaming naming = new LimiterNaming();

    @AfterEach
    void flushAfterwards() {
        redis.flushAll();
    }

    static long heldPermits(RedisDeployment redis, String permitsKey) {
        return HeldPermits.of(redis, permitsKey);
    }

    @Test
    void theScriptsSliceTheWindowIntoTheSlicesThisTestCounts() {
        assertThat(LuaScripts.ACQUIRE.text()).contains("local SLICES = " + SLICES + "\n");
    }

    @Test
    void grantsSpreadOverEverySliceOfTheWindowHoldNoMoreMembersThanSlicesAndAtMost256Kib() {
        RedissonClient client = fresh.newClient();
        // grants stamped by a clock that moves one second per grant: over an hour's window of slices of 3,516 ms,
        // each slice takes grants, and the window moves on (5,000 s of grants, a window of 3,600 s)
        AtomicLong clock = new AtomicLong(1_800_000_000_000L);
        InstantSource ticking = () -> Instant.ofEpochMilli(clock.get());
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client,
                BackendOptions.DEFAULTS.withClock(LimiterClock.CLIENT), ticking);
        LimitSpec spec = new LimitSpec(100_000, Duration.ofHours(1), RateLimitMode.OVERALL);
        String name = naming.limiterName("sliced:spread");
        String permitsKey = LimiterNaming.permitsKey(name);
        long most = 0;
        long mostBytes = 0;
        for (int second = 0; second < 5_000; second++) {
            assertThat(acquire(backend, name, spec, 7).allowed()).isTrue();
            clock.addAndGet(1_000);
            if (second % 100 == 99) {
                long members = redis.number("ZCARD", permitsKey);
                assertThat(members).as("members after %d s", second + 1).isLessThanOrEqualTo(SLICES + 1);
                most = Math.max(most, members);
                mostBytes = Math.max(mostBytes, redis.number("MEMORY", "USAGE", permitsKey, "SAMPLES", "0")
                        + redis.number("MEMORY", "USAGE", name, "SAMPLES", "0")
                        + redis.number("MEMORY", "USAGE", LimiterNaming.valueKey(name), "SAMPLES", "0"));
            }
        }
        System.out.printf("[sliced] 5,000 grants, one a second, over a window of one hour: at most %d members, %d "
                + "bytes%n", most, mostBytes);
        assertThat(most).as("every slice of the window took grants").isGreaterThanOrEqualTo(SLICES - 1);
        assertThat(mostBytes).isLessThanOrEqualTo(256 * 1024);
        assertThat(heldPermits(redis, permitsKey)).as("the window holds the grants of its last hour")
                .isBetween(7L * 3_599, 7L * 3_605); // stamped up to one slice (3.5 s) after their time

        // a lost counter is recounted from the members (no more than the slices), as RRateLimiter counts them
        redis.command("DEL", LimiterNaming.valueKey(name));
        assertThat(acquire(backend, name, spec, 1).allowed()).isTrue();
        long free = Long.parseLong(redis.string("GET", LimiterNaming.valueKey(name)));
        assertThat(free + heldPermits(redis, permitsKey)).as("free + held = rate").isEqualTo(100_000);
    }

    @Test
    void rRateLimiterReadsAndTakesFromTheSlicesMembers() {
        RedissonClient client = fresh.newClient();
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);
        // slices of 3,516 ms: the 30 grants below share one member, or two
        LimitSpec spec = new LimitSpec(100, Duration.ofHours(1), RateLimitMode.OVERALL);
        String name = naming.limiterName("sliced:rrl");
        for (int i = 0; i < 30; i++) {
            assertThat(acquire(backend, name, spec, 1).allowed()).isTrue();
        }
        assertThat(redis.number("ZCARD", LimiterNaming.permitsKey(name))).isBetween(1L, 2L);

        RRateLimiter limiter = client.getRateLimiter(name);
        assertThat(limiter.availablePermits()).isEqualTo(70);
        assertThat(limiter.tryAcquire(5)).isTrue();
        assertThat(state(backend, name, spec).available()).isEqualTo(65);
        assertThat(acquire(backend, name, spec, 65).allowed()).isTrue();
        assertThat(acquire(backend, name, spec, 1).allowed()).isFalse();
        assertThat(limiter.availablePermits()).isZero();
        assertThat(limiter.tryAcquire(1)).isFalse();
    }

    @Test
    void aRefundGivesBackItsGrantsPermitsFromTheSharedMember() {
        RedissonClient client = fresh.newClient();
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);
        LimitSpec spec = new LimitSpec(10, Duration.ofHours(1), RateLimitMode.OVERALL);
        String name = naming.limiterName("sliced:refund");
        assertThat(acquire(backend, name, spec, 3).allowed()).isTrue();
        assertThat(acquire(backend, name, spec, 2).allowed()).isTrue();
        assertThat(redis.number("ZCARD", LimiterNaming.permitsKey(name))).isOne();

        release(backend, name, spec, 2);

        assertThat(state(backend, name, spec).available()).isEqualTo(7);
        assertThat(client.getRateLimiter(name).availablePermits()).isEqualTo(7);
        assertThat(acquire(backend, name, spec, 7).allowed()).as("the 3 taken first stay held").isTrue();
        assertThat(acquire(backend, name, spec, 1).allowed()).isFalse();
    }
}
