package io.github.redissonratelimit.test.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RBucket;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/** The Sentinel deployment: replication, a failover after the master is killed, Redisson following it. */
class RedisSentinelProcessTest {

    @RegisterExtension
    final RedissonClients clients = new RedissonClients();

    @Test
    void failsOverToTheReplicaWhenTheMasterIsKilledAndRedissonFollows() {
        long startedAt = System.nanoTime();
        try (RedisSentinelProcess sentinel = RedisSentinelProcess.start()) {
            System.out.printf("[test-redis] %s started in %d ms%n", sentinel.describe(),
                    (System.nanoTime() - startedAt) / 1_000_000);
            RedisEndpoint master = sentinel.master();
            List<RedisEndpoint> replicas = sentinel.replicas();
            assertThat(replicas).hasSize(1);
            RedisEndpoint replica = replicas.get(0);
            assertThat(replica.string("INFO", "replication")).contains("role:slave");

            assertThat(master.string("SET", "before", "1")).isEqualTo("OK");
            assertThat(master.number("WAIT", "1", "5000")).as("replicas that acknowledged the write").isEqualTo(1);
            assertThat(replica.string("GET", "before")).isEqualTo("1");

            RedissonClient client = clients.create(sentinel);
            RBucket<String> bucket = client.getBucket("via-redisson", StringCodec.INSTANCE);
            bucket.set("before");
            assertThat(master.string("GET", "via-redisson")).isEqualTo("before");
            assertThat(master.number("WAIT", "1", "5000")).isEqualTo(1);

            RedisEndpoint killed = sentinel.killMaster();
            long killedAt = System.nanoTime();
            RedisEndpoint promoted = sentinel.awaitNewMaster(killed, Duration.ofSeconds(30));
            System.out.printf("[test-redis] Sentinel failover from port %d to port %d took %d ms%n", killed.port(),
                    promoted.port(), (System.nanoTime() - killedAt) / 1_000_000);

            assertThat(killed.port()).isEqualTo(master.port());
            assertThat(promoted.port()).isNotEqualTo(killed.port()).isEqualTo(replica.port());
            assertThat(sentinel.master().port()).isEqualTo(promoted.port());
            assertThat(sentinel.replicas()).isEmpty(); // the old master is dead, not restarted
            assertThat(promoted.string("GET", "before")).isEqualTo("1");

            // the client created before the failover follows it (Redisson rescans the sentinels every second)
            long promotedAt = System.nanoTime();
            setWithin(bucket, "after", Duration.ofSeconds(15));
            System.out.printf("[test-redis] the Redisson client wrote to the new master %d ms after the sentinels "
                    + "reported it%n", (System.nanoTime() - promotedAt) / 1_000_000);
            assertThat(promoted.string("GET", "via-redisson")).isEqualTo("after");

            // a client created now starts on the new master, the dead one being only a replica that is down
            RBucket<String> fresh = clients.create(sentinel).getBucket("fresh", StringCodec.INSTANCE);
            fresh.set("new");
            assertThat(promoted.string("GET", "fresh")).isEqualTo("new");
            assertThat(sentinel.keys("*")).containsExactlyInAnyOrder("before", "via-redisson", "fresh");
        }
    }

    private static void setWithin(RBucket<String> bucket, String value, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                bucket.set(value);
                return;
            }
            catch (RuntimeException ex) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("Redisson did not reach the new master within " + timeout, ex);
                }
            }
            try {
                Thread.sleep(100);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new AssertionError(ex);
            }
        }
    }
}
