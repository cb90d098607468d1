package io.github.redissonratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.naming.KeyStyle;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.KeySlot;

/** The slot map read from {@code CLUSTER SLOTS}, and the slot of a limiter's keys. */
class ClusterMastersTest {

    private static final String[] THREE_MASTERS = owners("10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379");

    private static String[] owners(String... masters) {
        String[] owners = new String[16384];
        for (int i = 0; i < masters.length; i++) {
            Arrays.fill(owners, i * 16384 / masters.length, (i + 1) * 16384 / masters.length, masters[i]);
        }
        return owners;
    }

    @Test
    void aRoutingKeyLandsOnTheMasterItIsFor() {
        for (String master : new String[] { "10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379" }) {
            String key = ClusterMasters.routingKey(THREE_MASTERS, master);
            assertThat(THREE_MASTERS[KeySlot.of(key)]).isEqualTo(master);
        }
        assertThat(ClusterMasters.routingKey(THREE_MASTERS, "10.0.0.9:6379")).isNull();
    }

    @Test
    void slotOfALimiterIsTheSlotOfEachOfItsKeys() {
        LimiterNaming naming = new LimiterNaming();
        for (String key : new String[] { "user:1", "order:submit:42", "a{b}c", "é", "{}" }) {
            String name = naming.limiterName(key);
            int slot = LimiterNaming.slotOf(name);
            assertThat(slot).as(name).isEqualTo(KeySlot.of(name)).isEqualTo(KeySlot.of(LimiterNaming.valueKey(name)))
                    .isEqualTo(KeySlot.of(LimiterNaming.permitsKey(name)));
        }
        LimiterNaming plain = new LimiterNaming("rl:", LimiterNaming.DEFAULT_MAX_KEY_LENGTH, KeyStyle.PLAIN);
        String name = plain.limiterName("user:1");
        assertThat(LimiterNaming.slotOf(name)).isEqualTo(KeySlot.of(name))
                .isEqualTo(KeySlot.of(LimiterNaming.permitsKey(name)));
        assertThat(LimiterNaming.slotOf("foo")).isEqualTo(12182);
    }
}
