package io.github.redissonratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.test.redis.KeySlot;

/** Which node of a slot range is its master, and the slot of a limiter's keys. */
class ClusterMastersTest {

    private static final String MASTER = "127.0.0.1:7000";
    private static final String REPLICA = "127.0.0.1:7003";

    @Test
    void theMasterIsTheNodeRedissonRoutesTo() {
        // CLUSTER SLOTS as Redisson decodes it does not say which of a range's nodes is the master
        assertThat(ClusterMasters.owner(Set.of(REPLICA, MASTER), Set.of(MASTER, "127.0.0.1:7001"), null))
                .isEqualTo(MASTER);
        assertThat(ClusterMasters.owner(Set.of(MASTER, REPLICA), Set.of(REPLICA), MASTER)).isEqualTo(REPLICA);
    }

    @Test
    void aPromotedReplicaOwnsTheRangeBeforeRedissonSeesIt() {
        // a failed master is no longer listed; Redisson still routes to it until its next topology scan
        assertThat(ClusterMasters.owner(Set.of(REPLICA), Set.of(MASTER, "127.0.0.1:7001"), MASTER)).isEqualTo(REPLICA);
    }

    @Test
    void aRangeWhoseMasterRedissonDoesNotKnowKeepsItsPreviousOwner() {
        assertThat(ClusterMasters.owner(Set.of(MASTER, REPLICA), Set.of("127.0.0.1:7001"), MASTER)).isEqualTo(MASTER);
        assertThat(ClusterMasters.owner(Set.of(MASTER, REPLICA), Set.of("127.0.0.1:7001"), null))
                .isIn(MASTER, REPLICA);
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
