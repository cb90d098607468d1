package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static io.github.redissonratelimit.limiter.BackendCalls.state;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * Decisions at the edges of the law free + permits held by the grants in the window = rate: a call asking for more
 * than the rate, a rate lowered by such a call, a counter RRateLimiter's own release wrote.
 */
class DecisionEdgeCasesTest {

    private static final Duration MINUTE = Duration.ofMinutes(1);
    private static final LimitSpec THREE = new LimitSpec(3, MINUTE, RateLimitMode.OVERALL);
    private static final LimitSpec SIX = new LimitSpec(6, MINUTE, RateLimitMode.OVERALL);
    private static final LimitSpec TEN = new LimitSpec(10, MINUTE, RateLimitMode.OVERALL);

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();
    private final String name = new LimiterNaming().limiterName("edge:42");
    private RedissonClient client;

    @BeforeEach
    void setUp() {
        client = fresh.newClient();
    }

    @Test
    void moreThanTheRateOnANewLimiterFailsNamingItAndWritesNothing() {
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);

        assertThatThrownBy(() -> acquire(backend, name, THREE, 4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + name + "'").hasMessageContaining("4 permits")
                .hasMessageContaining("rate is 3");
        assertThat(redis.keys("*")).as("no keys, so none without a TTL").isEmpty();
    }

    @Test
    void aRateLoweredByACallAskingMoreThanTheNewRateIsRecountedAllTheSame() {
        AtomicLong millis = new AtomicLong(1_000_000);
        InstantSource clock = () -> Instant.ofEpochMilli(millis.get());
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client,
                BackendOptions.DEFAULTS.withClock(LimiterClock.CLIENT), clock);
        assertThat(acquire(backend, name, TEN, 5).allowed()).isTrue();
        millis.addAndGet(30_000);
        assertThat(acquire(backend, name, TEN, 5).allowed()).isTrue();

        millis.addAndGet(1_000);
        assertThatThrownBy(() -> acquire(backend, name, SIX, 8)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rate is 6");
        assertThat(redis.command("HGET", name, "rate")).hasToString("6");

        millis.addAndGet(30_000); // the first 5 permits left the window, 5 are still held under a rate of 6
        long granted = 0;
        while (acquire(backend, name, SIX, 1).allowed()) {
            granted++;
        }
        assertThat(granted).as("rate 6 - 5 still held").isEqualTo(1);
    }

    @Test
    void aCounterRRateLimitersReleaseRaisedIsRecountedByTheNextDecision() {
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);
        assertThat(acquire(backend, name, TEN, 5).allowed()).isTrue();
        assertThat(acquire(backend, name, TEN, 5).allowed()).isTrue();

        client.getRateLimiter(name).release(3); // adds 3 free permits, the grants of 5 + 5 stay in the window

        assertThat(acquire(backend, name, TEN, 1).allowed()).as("10 of 10 are held").isFalse();
        assertThat(client.getBucket(LimiterNaming.valueKey(name), StringCodec.INSTANCE).get()).isEqualTo("0");
        assertThat(state(backend, name, TEN).available()).isZero();
    }

    @Test
    void stateReadsACounterRRateLimitersReleaseRaisedAsTheNextDecisionWouldSeeIt() {
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);
        assertThat(acquire(backend, name, TEN, 5).allowed()).isTrue();
        assertThat(acquire(backend, name, TEN, 4).allowed()).isTrue();

        client.getRateLimiter(name).release(3);

        assertThat(state(backend, name, TEN).available()).isEqualTo(1);
        assertThat(acquire(backend, name, TEN, 1).allowed()).isTrue();
        assertThat(acquire(backend, name, TEN, 1).allowed()).isFalse();
    }

    /**
     * A limiter changed from PER_CLIENT to OVERALL finds, under the OVERALL counter's key, what is not a count (a token
     * bucket's state another instance left there): it is recounted from the grants like a lost counter, where it used
     * to fail the decision with a Lua error.
     */
    @Test
    void aTypeChangedOverAnotherAlgorithmsLeftoverStateIsRecountedNotAnError() {
        LimitSpec perClient = new LimitSpec(10, MINUTE, RateLimitMode.PER_CLIENT);
        assertThat(acquire(new RedissonRateLimitBackend(client), name, perClient, 1).allowed()).isTrue();
        redis.command("EVAL", "redis.call('set', KEYS[1], 'g' .. struct.pack('>ddd', 1e15, 1e15, 0) .. '10:60000:10')",
                "1", LimiterNaming.valueKey(name));

        RedissonRateLimitBackend overall = new RedissonRateLimitBackend(fresh.newClient());
        assertThat(acquire(overall, name, TEN, 1).allowed()).isTrue();
        assertThat(redis.command("GET", LimiterNaming.valueKey(name))).isEqualTo("9");
    }
}
