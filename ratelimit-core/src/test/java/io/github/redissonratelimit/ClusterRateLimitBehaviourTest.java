package io.github.redissonratelimit;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.RedisClusterProcess;
import io.github.redissonratelimit.test.redis.RedisDeployment;

/**
 * The behaviour suite on a Redis Cluster of three masters started by the test from the redis-server
 * binary, with Redisson in cluster mode: every limiter's keys must stay in one slot (no CROSSSLOT),
 * whatever braces the user's input holds.
 */
class ClusterRateLimitBehaviourTest extends AbstractRateLimitBehaviourTest {

    @Override
    protected RedisDeployment redis() {
        return RedisClusterProcess.shared();
    }

    @Test
    void limitersSpreadOverTheMasters() {
        RedisClusterProcess cluster = RedisClusterProcess.shared();
        LimiterNaming naming = new LimiterNaming();
        LimitSpec spec = new LimitSpec(3, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        RedissonClient client = cluster.newRedissonClient();
        try {
            RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);
            Set<Integer> masters = new HashSet<>();
            for (int user = 0; user < 30; user++) {
                String name = naming.limiterName("user:" + user);
                assertThat(acquire(backend, name, spec, 1).allowed()).isTrue();
                masters.add(cluster.nodeOf(name));
                assertThat(cluster.number("EXISTS", name, name + ":value", name + ":permits")).isEqualTo(3);
            }
            assertThat(masters).containsExactlyInAnyOrder(0, 1, 2);
        }
        finally {
            client.shutdown();
        }
    }
}
