package io.github.redissonratelimit.redis;

import io.github.redissonratelimit.test.redis.RedisDeployment;
import io.github.redissonratelimit.test.redis.RedisSentinelProcess;

/** The algorithm suite on the shared master with a replica under three sentinels. */
class SentinelAlgorithmBehaviourTest extends AbstractAlgorithmCallsTest {

    @Override
    protected RedisDeployment redis() {
        return RedisSentinelProcess.shared();
    }
}
