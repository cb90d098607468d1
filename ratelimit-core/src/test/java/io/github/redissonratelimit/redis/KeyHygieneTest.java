package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.KeySlot;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

/** User input in keys: every key of one limiter lands in one cluster slot, and stays bounded. */
@ExtendWith(RealRedisExtension.class)
class KeyHygieneTest {

    private static final String HUGE = "h".repeat(5_000);

    static List<String> userInputs() {
        return List.of("a{b", "}{", "x}y{z", "{}", "{user}", "new\nline", "tab\tand space", "50%", "ü{ß}", HUGE);
    }

    @ParameterizedTest
    @MethodSource("userInputs")
    void keysOfOneLimiterShareASlotAndStayBounded(String userInput, RedisEndpoint redis) {
        redis.flushAll();
        LimiterNaming naming = new LimiterNaming();
        String name = naming.limiterName("user:" + userInput);
        RedissonClient client = redis.newRedissonClient();
        try {
            RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);
            LimitSpec spec = new LimitSpec(1, Duration.ofMinutes(1), RateLimitMode.OVERALL);
            assertThat(acquire(backend, name, spec, 1).allowed()).isTrue();
            assertThat(acquire(backend, name, spec, 1).allowed()).isFalse();

            try (RespClient cli = redis.cli()) {
                @SuppressWarnings("unchecked")
                List<String> keys = (List<String>) (List<?>) cli.list("KEYS", "rate_limit:*");
                assertThat(keys).containsExactlyInAnyOrder(name, name + ":value", name + ":permits");
                assertThat(keys).allSatisfy(key -> {
                    assertThat(KeySlot.of(key)).isEqualTo(KeySlot.of(name));
                    assertThat(key.length()).isLessThanOrEqualTo("rate_limit:{}:permits".length()
                            + LimiterNaming.DEFAULT_MAX_KEY_LENGTH);
                });
            }
        }
        finally {
            client.shutdown();
        }
    }

    @Test
    void differentUsersSpreadOverSlots() {
        LimiterNaming naming = new LimiterNaming();
        long slots = java.util.stream.IntStream.range(0, 100)
                .map(i -> KeySlot.of(naming.limiterName("user:" + i))).distinct().count();
        assertThat(slots).isGreaterThan(90);
    }
}
