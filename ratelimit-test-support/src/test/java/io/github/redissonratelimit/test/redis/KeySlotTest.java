package io.github.redissonratelimit.test.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KeySlotTest {

    @Test
    void matchesTheSlotsRedisDocuments() {
        // values from the Redis Cluster specification and CLUSTER KEYSLOT
        assertThat(KeySlot.of("123456789")).isEqualTo(12739);
        assertThat(KeySlot.of("foo")).isEqualTo(12182);
        assertThat(KeySlot.of("{user1000}.following")).isEqualTo(KeySlot.of("user1000"));
        assertThat(KeySlot.of("foo{}{bar}")).isEqualTo(KeySlot.of("foo{}{bar}"));
        assertThat(KeySlot.of("foo{{bar}}zap")).isEqualTo(KeySlot.of("{bar"));
    }
}
