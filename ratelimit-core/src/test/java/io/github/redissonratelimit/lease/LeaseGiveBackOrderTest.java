package io.github.redissonratelimit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.FreshRedis;

/**
 * What a lease gives back (its unspent permits, a plain grant asked ahead) is in Redis before the lease's next call
 * to Redis, on a real Redis whose give-backs arrive late (as one sent on another connection may arrive after a call
 * sent later): a call that needs those permits is not refused for want of them. Each scenario takes exactly the rate,
 * so each of its calls must pass.
 */
class LeaseGiveBackOrderTest {

    private static final Duration INTERVAL = Duration.ofSeconds(60);
    private static final Duration LEASE = Duration.ofSeconds(5);
    private static final long GIVE_BACK_DELAY_MILLIS = 300;

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final String name = new LimiterNaming().limiterName("lease:give-back-order");

    /**
     * A rate of 5: the second call leases 2 (1 held), 2 are left free; a call of 3 finds 1 held, too few: the held
     * one goes back, and the call, decided by Redis, finds 3 free.
     */
    @Test
    void theUnspentPermitsOfALeaseTooSmallForACallAreBackBeforeTheCallGoesToRedis() throws Exception {
        LimitSpec spec = new LimitSpec(5, INTERVAL, RateLimitMode.OVERALL);
        RedissonRateLimitBackend redis = new RedissonRateLimitBackend(fresh.newClient());
        LeasingRateLimitBackend leasing = new LeasingRateLimitBackend(slowGiveBacks(redis));
        assertThat(allowed(leasing, spec, 1)).isTrue();
        assertThat(allowed(leasing, spec, 1)).isTrue();
        assertThat(Held.permits(leasing, name)).as("held of the lease the second call took").isEqualTo(1);
        assertThat(free(redis, spec)).isEqualTo(2);

        assertThat(allowed(leasing, spec, 3)).as("3 permits: the 2 free and the 1 the lease held").isTrue();
        assertThat(free(redis, spec)).isZero();
        leasing.close();
    }

    /**
     * A rate of 20: a lease of 8 held, another instance takes 8 of the 10 free. The lease running low asks ahead,
     * gets a plain grant (Redis near exhaustion) and gives it back; its last 2 permits are spent, and the next 2 calls,
     * decided by Redis, find the 2 free.
     */
    @Test
    void aPlainGrantAskedAheadIsBackBeforeTheNextCallGoesToRedis() throws Exception {
        LimitSpec spec = new LimitSpec(20, INTERVAL, RateLimitMode.OVERALL);
        RedissonRateLimitBackend redis = new RedissonRateLimitBackend(fresh.newClient());
        LeasingRateLimitBackend leasing = new LeasingRateLimitBackend(slowGiveBacks(redis));
        assertThat(allowed(leasing, spec, 1)).isTrue();
        assertThat(allowed(leasing, spec, 1)).isTrue();
        assertThat(Held.permits(leasing, name)).as("held of the lease the second call took").isEqualTo(8);
        RedissonRateLimitBackend other = new RedissonRateLimitBackend(fresh.newClient());
        for (int i = 0; i < 8; i++) {
            assertThat(other.acquire(name, spec, 1).toCompletableFuture().get(5, TimeUnit.SECONDS).allowed())
                    .as("the other instance's call %d", i + 1).isTrue();
        }
        assertThat(free(redis, spec)).isEqualTo(2);

        long calls = leasing.redisCalls();
        for (int i = 0; i < 8; i++) {
            assertThat(allowed(leasing, spec, 1)).as("from the lease, %d of 8", i + 1).isTrue();
        }
        assertThat(leasing.redisCalls()).as("every one of the 8 from the lease").isEqualTo(calls);
        assertThat(allowed(leasing, spec, 1)).as("the first of the 2 left free").isTrue();
        assertThat(allowed(leasing, spec, 1)).as("the second of the 2 left free").isTrue();
        assertThat(free(redis, spec)).isZero();
        leasing.close();
    }

    private static RateLimitBackend slowGiveBacks(RedissonRateLimitBackend redis) {
        return new LateGiveBacks(redis, () -> TimeUnit.MILLISECONDS.toMicros(GIVE_BACK_DELAY_MILLIS));
    }

    private boolean allowed(RateLimitBackend backend, LimitSpec spec, long permits) throws Exception {
        return backend.acquire(new AcquireRequest(name, spec, permits, BackendErrorPolicy.DENY, false, Duration.ZERO,
                null, new AcquireRequest.Lease(LEASE, 0))).toCompletableFuture().get(5, TimeUnit.SECONDS).allowed();
    }

    private long free(RedissonRateLimitBackend redis, LimitSpec spec) throws Exception {
        return redis.state(name, spec).toCompletableFuture().get(5, TimeUnit.SECONDS).available();
    }
}
