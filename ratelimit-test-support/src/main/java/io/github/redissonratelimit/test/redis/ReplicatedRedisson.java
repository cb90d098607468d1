package io.github.redissonratelimit.test.redis;

import org.redisson.config.BaseMasterSlaveServersConfig;
import org.redisson.config.ReadMode;

/** The Redisson settings of the tests' clients of a replicated Redis (cluster, Sentinel). */
final class ReplicatedRedisson {

    private ReplicatedRedisson() {
    }

    /** Reads from masters only, small pools, short timeouts: what the tests' clients of a replicated Redis use. */
    static <T extends BaseMasterSlaveServersConfig<T>> T testPools(T config) {
        return config.setReadMode(ReadMode.MASTER)
                .setMasterConnectionMinimumIdleSize(2)
                .setMasterConnectionPoolSize(16)
                .setSlaveConnectionMinimumIdleSize(0)
                .setSubscriptionConnectionMinimumIdleSize(1)
                .setTimeout(3_000)
                .setRetryAttempts(1);
    }
}
