package io.github.redissonratelimit.test.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The test cluster, and {@link KeySlot} against it. */
class RedisClusterProcessTest {

    @Test
    void keySlotAgreesWithTheCluster() {
        RedisClusterProcess cluster = RedisClusterProcess.shared();
        try (RespClient cli = cluster.cliFor("any")) {
            for (String key : new String[] { "foo", "rate_limit:{a%7Db}:value", "x{}y", "{}", "é{ü}", "}{" }) {
                assertThat(KeySlot.of(key)).as(key).isEqualTo(cli.number("CLUSTER", "KEYSLOT", key));
            }
        }
    }

    @Test
    void routesEachKeyToItsMaster() {
        RedisClusterProcess cluster = RedisClusterProcess.shared();
        cluster.flushAll();
        for (int i = 0; i < 30; i++) {
            assertThat(cluster.string("SET", "key:" + i, "v" + i)).isEqualTo("OK"); // a wrong node answers MOVED
        }
        assertThat(cluster.keys("key:*")).hasSize(30);
        assertThat(cluster.string("GET", "key:7")).isEqualTo("v7");
        cluster.flushAll();
        assertThat(cluster.keys("*")).isEmpty();
    }
}
