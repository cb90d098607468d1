package io.github.redissonratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.RedisClusterProcess;

/**
 * On a Redis Cluster a script may only touch keys of one slot: the limits of one call whose limiters hash to the same
 * slot are decided in one script call, the others each in their own, and every decision is the one made alone.
 */
class ClusterAcquireManyTest {

    private static final LimitSpec THREE = new LimitSpec(3, Duration.ofMinutes(1), RateLimitMode.OVERALL);
    private static final LimitSpec FIVE = new LimitSpec(5, Duration.ofMinutes(1), RateLimitMode.OVERALL);

    private final RedisClusterProcess cluster = RedisClusterProcess.shared();
    private final LimiterNaming naming = new LimiterNaming();
    private RedissonClient client;
    private RedissonRateLimitBackend backend;

    @BeforeEach
    void setUp() throws Exception {
        cluster.flushAll();
        client = cluster.newRedissonClient();
        backend = new RedissonRateLimitBackend(client);
        RedissonRateLimitBackend.loadScripts(client).toCompletableFuture().get(30, TimeUnit.SECONDS);
        // the first decisions wait for the slot map: outside any scope
        backend.acquire(naming.limiterName("warm-up"), THREE, 1).toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @AfterEach
    void tearDown() {
        client.shutdown();
    }

    /** A limiter whose keys hash to the slot of {@code other}'s. */
    private String inSlotOf(String other) {
        int slot = LimiterNaming.slotOf(other);
        for (int i = 0; i < 1_000_000; i++) {
            String name = naming.limiterName("region:" + i);
            if (LimiterNaming.slotOf(name) == slot && !name.equals(other)) {
                return name;
            }
        }
        throw new IllegalStateException("no limiter name found in slot " + slot);
    }

    private long scriptCallsFor(String user, String region, int calls) throws Exception {
        CommandStats before = cluster.commandStats();
        for (int i = 0; i < calls; i++) {
            List<CompletableFuture<Decision>> decisions = backend.acquireAll(List.of(AcquireRequest.of(user, THREE, 1),
                    AcquireRequest.of(region, FIVE, 1))).stream().map(stage -> stage.toCompletableFuture()).toList();
            assertThat(decisions.get(0).get(30, TimeUnit.SECONDS).allowed()).as("user, call %d", i).isEqualTo(i < 3);
            assertThat(decisions.get(1).get(30, TimeUnit.SECONDS).allowed()).as("region, call %d", i)
                    .isEqualTo(i < 5);
        }
        CommandStats delta = cluster.commandStats().minus(before);
        assertThat(cluster.string("GET", LimiterNaming.valueKey(user))).isEqualTo("0");
        assertThat(cluster.string("GET", LimiterNaming.valueKey(region))).isEqualTo("0");
        return delta.calls("evalsha") + delta.calls("eval");
    }

    @Test
    void limitersOfOneSlotAreDecidedInOneScriptCall() throws Exception {
        String user = naming.limiterName("user:ann");
        String region = inSlotOf(user);

        assertThat(scriptCallsFor(user, region, 6)).isEqualTo(6);
    }

    @Test
    void limitersOfDifferentSlotsAreDecidedEachInItsOwn() throws Exception {
        String user = naming.limiterName("user:bob");
        String region = naming.limiterName("region:eu");
        assertThat(LimiterNaming.slotOf(user)).isNotEqualTo(LimiterNaming.slotOf(region));

        assertThat(scriptCallsFor(user, region, 6)).isEqualTo(12);
    }
}
