package io.github.redissonratelimit.redis;

import io.github.redissonratelimit.test.redis.RedisDeployment;
import io.github.redissonratelimit.test.redis.RedisClusterProcess;

/** The algorithm suite on the shared Redis Cluster of three masters (every limiter's keys in one slot). */
class ClusterAlgorithmBehaviourTest extends AbstractAlgorithmCallsTest {

    @Override
    protected RedisDeployment redis() {
        return RedisClusterProcess.shared();
    }
}
