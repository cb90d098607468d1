package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static io.github.redissonratelimit.limiter.BackendCalls.await;
import static io.github.redissonratelimit.limiter.BackendCalls.state;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/** The token bucket (GCRA) on Redis, step by step on a clock the test moves: bursts, refill, refunds, state, keys. */
class TokenBucketTest {

    /** 10 per second (one permit every 100 ms), bursts of 5. */
    private static final LimitSpec BUCKET = new LimitSpec(10, Duration.ofSeconds(1), RateLimitMode.OVERALL,
            LimitAlgorithm.tokenBucket(5));

    /** The µs until the bucket is full by Redis's clock, and its key's PTTL and PEXPIRETIME; none without a key. */
    private static final String UNTIL_FULL_AND_EXPIRY = """
            local value = redis.call('get', KEYS[1])
            if not value then return {} end
            local time = redis.call('time')
            local tat = struct.unpack('>d', value, 2)
            return {tat - (time[1] * 1000000 + time[2]), redis.call('pttl', KEYS[1]), redis.call('pexpiretime', KEYS[1])}
            """;

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();
    private final String name = new LimiterNaming().limiterName("bucket:42");
    private final AtomicLong millis = new AtomicLong(1_700_000_000_000L);
    private RedissonRateLimitBackend backend;

    @BeforeEach
    void setUp() {
        RedissonClient client = fresh.newClient();
        InstantSource clock = () -> Instant.ofEpochMilli(millis.get());
        backend = new RedissonRateLimitBackend(client, BackendOptions.DEFAULTS.withClock(LimiterClock.CLIENT), clock);
    }

    @Test
    void aFullBucketGrantsTheBurstThenOnePermitPerEmissionInterval() {
        for (int i = 0; i < 5; i++) {
            assertThat(acquire(backend, name, BUCKET, 1).allowed()).as("burst permit %d", i + 1).isTrue();
        }
        Decision rejected = acquire(backend, name, BUCKET, 1);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfter()).isEqualTo(Duration.ofMillis(100));
        assertThat(rejected.state()).isEqualTo(new LimitState(0, Duration.ofMillis(100)));

        millis.addAndGet(99);
        assertThat(acquire(backend, name, BUCKET, 1).allowed()).isFalse();
        millis.addAndGet(1);
        assertThat(acquire(backend, name, BUCKET, 1).allowed()).isTrue();
        assertThat(acquire(backend, name, BUCKET, 1).allowed()).isFalse();

        millis.addAndGet(250); // two and a half permits back
        Decision two = acquire(backend, name, BUCKET, 2);
        assertThat(two.allowed()).isTrue();
        assertThat(two.state()).as("half a permit refilled, the next whole one in 50 ms")
                .isEqualTo(new LimitState(0, Duration.ofMillis(50)));
    }

    @Test
    void aCallAskingMoreThanTheBurstFailsAndWritesNothing() {
        assertThatThrownBy(() -> acquire(backend, name, BUCKET, 6)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("6 permits");
        assertThat(redis.keys("*")).isEmpty();
    }

    @Test
    void theStateIsOneKeyThatExpiresOnceTheBucketIsFullAgain() {
        LimitSpec slow = new LimitSpec(10, Duration.ofMinutes(1), RateLimitMode.OVERALL, LimitAlgorithm.tokenBucket(5));
        assertThat(acquire(backend, name, slow, 3).allowed()).isTrue();

        assertThat(redis.keys("*")).containsExactly(LimiterNaming.valueKey(name));
        long ttl = Long.parseLong(String.valueOf(redis.command("PTTL", LimiterNaming.valueKey(name))));
        // not before the 3 permits refilled (18 s), at most an eighth of the refill time of 5 (30 s) later
        assertThat(ttl).as("3 permits refill in 18 s").isBetween(17_000L, 18_000L + 3_750L);
        assertThat(state(backend, name, slow)).isEqualTo(new LimitState(2, Duration.ofSeconds(6)));
    }

    /**
     * A write keeps the key's expiry while it stays the one of the new tat (an eighth of the refill time apart), so
     * over grants and refunds in any order, decided by Redis's clock, the key must never expire before the bucket is
     * full again (an absent key is a full bucket), nor more than an eighth of its refill time after.
     */
    @Test
    void theKeyNeverExpiresBeforeTheBucketIsFullAgainNorLongAfter() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        RedissonRateLimitBackend onRedisClock = new RedissonRateLimitBackend(fresh.newClient(), BackendOptions.DEFAULTS,
                InstantSource.system());
        // one permit every 6 s, a refill of 120 s: its expiry moves in steps of 15 s
        LimitSpec slow = new LimitSpec(10, Duration.ofMinutes(1), RateLimitMode.OVERALL,
                LimitAlgorithm.tokenBucket(20));
        List<Decision> granted = new ArrayList<>();
        List<Integer> permits = new ArrayList<>();
        int keptExpiries = 0;
        long previousExpiry = 0;
        for (int step = 0; step < 120; step++) {
            if (granted.isEmpty() || random.nextInt(10) < 6) {
                int wanted = 1 + random.nextInt(3);
                Decision decision = acquire(onRedisClock, name, slow, wanted);
                if (decision.allowed()) {
                    granted.add(decision);
                    permits.add(wanted);
                }
            }
            else {
                int which = random.nextInt(granted.size());
                await(onRedisClock.release(AcquireRequest.of(name, slow, permits.remove(which)),
                        granted.remove(which)));
            }
            List<?> key = (List<?>) redis.command("EVAL", UNTIL_FULL_AND_EXPIRY, "1", LimiterNaming.valueKey(name));
            if (key.isEmpty()) {
                continue; // full: nothing to keep
            }
            long untilFullMicros = (Long) key.get(0);
            long ttlMicros = (Long) key.get(1) * 1000;
            assertThat(ttlMicros).as("seed %d, step %d: the key expires in %d us, the bucket is full in %d us", seed,
                    step, ttlMicros, untilFullMicros).isGreaterThanOrEqualTo(untilFullMicros - 1000)
                    .isLessThanOrEqualTo(Math.max(0, untilFullMicros) + 15_000_000 + 1000);
            keptExpiries += (Long) key.get(2) == previousExpiry ? 1 : 0;
            previousExpiry = (Long) key.get(2);
        }
        assertThat(keptExpiries).as("seed %d: writes that kept the key's expiry", seed).isPositive();
    }

    @Test
    void aRefundGivesThePermitsTimeBack() {
        Decision granted = acquire(backend, name, BUCKET, 4);
        assertThat(granted.allowed()).isTrue();

        await(backend.release(AcquireRequest.of(name, BUCKET, 4), granted));

        assertThat(state(backend, name, BUCKET).available()).isEqualTo(5);
        for (int i = 0; i < 5; i++) {
            assertThat(acquire(backend, name, BUCKET, 1).allowed()).isTrue();
        }
        assertThat(acquire(backend, name, BUCKET, 1).allowed()).isFalse();
    }

    @Test
    void anUntouchedLimiterReadsAsAFullBucket() {
        assertThat(state(backend, name, BUCKET)).isEqualTo(new LimitState(5, Duration.ZERO));
        assertThat(redis.keys("*")).isEmpty();
    }

    @Test
    void aPerClientBucketBelongsToItsClient() {
        LimitSpec perClient = new LimitSpec(10, Duration.ofSeconds(1), RateLimitMode.PER_CLIENT,
                LimitAlgorithm.tokenBucket(1));
        assertThat(acquire(backend, name, perClient, 1).allowed()).isTrue();
        assertThat(acquire(backend, name, perClient, 1).allowed()).isFalse();
        assertThat(redis.keys("*")).singleElement().asString().startsWith(LimiterNaming.valueKey(name) + ":");
    }
}
