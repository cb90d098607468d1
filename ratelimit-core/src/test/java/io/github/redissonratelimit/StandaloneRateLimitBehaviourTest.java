package io.github.redissonratelimit;

import io.github.redissonratelimit.test.redis.RedisDeployment;
import io.github.redissonratelimit.test.redis.TestRedis;

/** The behaviour suite on the standalone Redis of the test JVM (REDIS_URL, Testcontainers or a redis-server process). */
class StandaloneRateLimitBehaviourTest extends AbstractRateLimitBehaviourTest {

    @Override
    protected RedisDeployment redis() {
        return TestRedis.endpoint();
    }
}
