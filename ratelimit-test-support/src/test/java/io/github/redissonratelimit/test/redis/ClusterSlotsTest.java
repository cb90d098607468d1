package io.github.redissonratelimit.test.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class ClusterSlotsTest {

    @Test
    void crc16IsXmodem() {
        byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertThat(ClusterSlots.crc16(check, 0, check.length)).isEqualTo(0x31C3);
    }

    @Test
    void hashesTheHashTagWhenThereIsOne() {
        assertThat(ClusterSlots.slot("{user1000}.following")).isEqualTo(ClusterSlots.slot("user1000"));
        assertThat(ClusterSlots.slot("foo{}{bar}")).as("empty tag: the whole key").isNotEqualTo(ClusterSlots.slot("bar"));
        assertThat(ClusterSlots.slot("foo{{bar}}zap")).isEqualTo(ClusterSlots.slot("{bar"));
        assertThat(ClusterSlots.slot("foo{bar}{zap}")).isEqualTo(ClusterSlots.slot("bar"));
    }

    @Test
    void agreesWithARealCluster() {
        RedisClusterProcess cluster = RedisClusterProcess.shared();
        try (RespClient cli = cluster.cliFor("any")) {
            for (String key : new String[] { "foo", "rate_limit:{a%7Db}:value", "x{}y", "{}", "é{ü}", "}{" }) {
                assertThat(ClusterSlots.slot(key)).as(key).isEqualTo(cli.number("CLUSTER", "KEYSLOT", key));
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
