package io.github.redissonratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.RedisClusterProcess;

/**
 * The backend finds the master of each limiter on a real cluster, through the Redisson API it uses for that
 * ({@code RedisNodes.CLUSTER}, {@code CLUSTER SLOTS}); the compat modules run it on Redisson 3.24 and 3.52 too.
 */
class ClusterMasterLocationTest {

    @Test
    void eachLimiterBelongsToTheMasterOfItsSlot() throws InterruptedException {
        RedisClusterProcess cluster = RedisClusterProcess.shared();
        LimiterNaming naming = new LimiterNaming();
        RedissonClient client = cluster.newRedissonClient();
        try {
            RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (backend.masters().size() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(20); // the slot map is read in the background
            }
            Set<String> expected = new HashSet<>();
            for (int port : cluster.ports()) {
                expected.add("127.0.0.1:" + port);
            }
            assertThat(backend.masters()).isEqualTo(expected);
            Set<String> seen = new HashSet<>();
            for (int user = 0; user < 30; user++) {
                String name = naming.limiterName("user:" + user);
                String master = backend.masterOf(name);
                assertThat(master).as(name).isEqualTo("127.0.0.1:" + cluster.ports().get(cluster.nodeOf(name)));
                seen.add(master);
            }
            assertThat(seen).isEqualTo(expected);
        }
        finally {
            client.shutdown();
        }
    }
}
