package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.KeyStyle;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.KeySlot;
import io.github.redissonratelimit.test.redis.RedisClusterProcess;
import io.github.redissonratelimit.test.redis.RedisDeployment;
import io.github.redissonratelimit.test.redis.RedissonClients;
import io.github.redissonratelimit.test.redis.TestRedis;

/**
 * {@link KeyStyle#PLAIN}: the names {@code redisson.getRateLimiter("rate_limit:" + key)} gives, so that the
 * limiters of a hand-written RRateLimiter aspect keep their counts at the cutover; on a Redis Cluster every key
 * of such a limiter (RRateLimiter's {@code {name}:value} and {@code {name}:permits}, PER_CLIENT's too) stays in
 * the slot of its name.
 */
class PlainKeyStyleTest {

    private static final Duration MINUTE = Duration.ofMinutes(1);

    @RegisterExtension
    final RedissonClients clients = new RedissonClients();
    private final LimiterNaming plain = new LimiterNaming(LimiterNaming.DEFAULT_PREFIX,
            LimiterNaming.DEFAULT_MAX_KEY_LENGTH, KeyStyle.PLAIN);

    @BeforeEach
    void flush() {
        TestRedis.endpoint().flushAll();
        RedisClusterProcess.shared().flushAll();
    }

    @Test
    void namesArePrefixAndKeyWithoutBraces() {
        assertThat(plain.limiterName("order:submit:42")).isEqualTo("rate_limit:order:submit:42");
        assertThat(new LimiterNaming("app1:", 200, KeyStyle.PLAIN).limiterName("k")).isEqualTo("app1:k");
        assertThat(new LimiterNaming("app1:", 200, KeyStyle.HASH_TAG).limiterName("k")).isEqualTo("app1:{k}");
        assertThat(new LimiterNaming().style()).isEqualTo(KeyStyle.HASH_TAG);
        assertThat(plain.limiterName("a{b}c")).as("no hash tag from user input").isEqualTo("rate_limit:a%7Bb%7Dc");
        String huge = plain.limiterName("x".repeat(10_000));
        assertThat(huge).hasSize("rate_limit:".length() + LimiterNaming.DEFAULT_MAX_KEY_LENGTH).contains("~")
                .doesNotContain("{", "}");
    }

    @Test
    void suffixKeysShareTheSlotOfAPlainName() {
        for (String key : new String[] { "order:submit:42", "user:7", "a{b}c", "{}", "a}{", "x".repeat(500) }) {
            String name = plain.limiterName(key);
            int slot = KeySlot.of(name);
            assertThat(KeySlot.of(LimiterNaming.valueKey(name))).as(name).isEqualTo(slot);
            assertThat(KeySlot.of(LimiterNaming.permitsKey(name))).as(name).isEqualTo(slot);
            assertThat(KeySlot.of(LimiterNaming.clientKey(LimiterNaming.valueKey(name), "client-id"))).as(name).isEqualTo(slot);
            assertThat(KeySlot.of(LimiterNaming.clientKey(LimiterNaming.permitsKey(name), "client-id"))).as(name).isEqualTo(slot);
        }
    }

    @Test
    void countsOfAHandWrittenAspectCarryOverOnAStandaloneRedis() {
        countsCarryOver(TestRedis.endpoint());
    }

    @Test
    void countsOfAHandWrittenAspectCarryOverOnACluster() {
        countsCarryOver(RedisClusterProcess.shared());
    }

    @Test
    void perClientAndOverallLimitersWorkOnAClusterWithPlainNames() {
        RedisClusterProcess cluster = RedisClusterProcess.shared();
        RateLimitBackend backend = new RedissonRateLimitBackend(clients.create(cluster));
        for (RateLimitMode mode : List.of(RateLimitMode.OVERALL, RateLimitMode.PER_CLIENT)) {
            LimitSpec spec = new LimitSpec(3, MINUTE, mode);
            for (int user = 0; user < 12; user++) {
                String name = plain.limiterName(mode + ":user:{" + user + "}");
                assertThat(IntStream.range(0, 5).filter(i -> acquire(backend, name, spec, 1).allowed()).count())
                        .as(name).isEqualTo(3);
                assertThat(cluster.number("EXISTS", name)).as(name).isEqualTo(1);
            }
        }
    }

    /**
     * What the blog aspect did ({@code getRateLimiter("rate_limit:" + key)}, {@code trySetRate}, {@code tryAcquire}),
     * then the starter on the same name: the grants made before the cutover still count.
     */
    private void countsCarryOver(RedisDeployment redis) {
        String key = "order:submit:42";
        RedissonClient before = clients.create(redis);
        RRateLimiter handWritten = before.getRateLimiter("rate_limit:" + key);
        handWritten.trySetRate(RateType.OVERALL, 5, MINUTE);
        for (int i = 0; i < 3; i++) {
            assertThat(handWritten.tryAcquire()).isTrue();
        }

        String name = plain.limiterName(key);
        assertThat(name).isEqualTo("rate_limit:" + key);
        RateLimitBackend backend = new RedissonRateLimitBackend(clients.create(redis));
        LimitSpec spec = new LimitSpec(5, MINUTE, RateLimitMode.OVERALL);
        assertThat(IntStream.range(0, 5).filter(i -> acquire(backend, name, spec, 1).allowed()).count())
                .as("the 3 grants of the hand-written aspect still count").isEqualTo(2);
        assertThat(SlicedGrantsTest.heldPermits(redis, LimiterNaming.permitsKey(name))).isEqualTo(5);
        assertThat(LimiterNaming.permitsKey(name)).isEqualTo("{rate_limit:order:submit:42}:permits");
        assertThat(handWritten.availablePermits()).as("and RRateLimiter sees the starter's grants").isZero();
    }
}
