package io.github.redissonratelimit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import io.github.redissonratelimit.test.redis.RedisDeployment;
import io.github.redissonratelimit.test.redis.RedisSentinelProcess;

/**
 * The behaviour suite on a master with one replica under three sentinels, started by the test from the
 * redis-server binary, with Redisson in sentinel mode (it finds the master through the sentinels). Started
 * once for the class and stopped after it.
 */
class SentinelRateLimitBehaviourTest extends AbstractRateLimitBehaviourTest {

    private static RedisSentinelProcess sentinel;

    @BeforeAll
    static void startSentinel() {
        sentinel = RedisSentinelProcess.start();
    }

    @AfterAll
    static void stopSentinel() {
        if (sentinel != null) {
            sentinel.close();
        }
    }

    @Override
    protected RedisDeployment redis() {
        return sentinel;
    }
}
