package io.github.redissonratelimit.test.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TestRedisTest {

    @Test
    void providesAWorkingRedis() {
        long start = System.nanoTime();
        RedisEndpoint endpoint = TestRedis.endpoint();
        System.out.printf("Redis from %s in %d ms%n", endpoint.origin(), (System.nanoTime() - start) / 1_000_000);
        try (RespClient cli = endpoint.cli()) {
            assertThat(cli.string("PING")).isEqualTo("PONG");
            assertThat(cli.string("INFO", "server")).contains("redis_version:");
        }
    }
}
