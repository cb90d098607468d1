package io.github.redissonratelimit.redis;

import io.github.redissonratelimit.test.redis.RedisDeployment;
import io.github.redissonratelimit.test.redis.TestRedis;

/** The algorithm suite on the standalone Redis of the test JVM. */
class StandaloneAlgorithmBehaviourTest extends AbstractAlgorithmCallsTest {

    @Override
    protected RedisDeployment redis() {
        return TestRedis.endpoint();
    }
}
