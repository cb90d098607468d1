package io.github.redissonratelimit.redis.membership;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.RunsAlone;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * The instance count of the local outage policy against a real Redis: it rises at once and falls only after an
 * instance was missing for the hold, so neither a pause nor an outage makes an instance count itself alone. Alone:
 * its heartbeats are 100 ms apart, and a busy machine delays them beyond what they live.
 */
@RunsAlone
class InstanceHeartbeatTest {

    private static final Duration INTERVAL = Duration.ofMillis(100);

    /**
     * The interval of instances beaten by hand: on a loaded machine the test's own steps may take longer than the
     * three intervals a heartbeat lives, after which the other instance would be missing (and may be deciding in memory).
     */
    private static final Duration BY_HAND = Duration.ofSeconds(1);

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();

    private InstanceHeartbeat started() {
        InstanceHeartbeat heartbeat = new InstanceHeartbeat(fresh.newClient(), new LimiterNaming(), INTERVAL, 0);
        heartbeat.start(Duration.ofSeconds(5));
        return heartbeat;
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting for: " + what).isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    @Test
    void anInstanceThatStopsBeatingIsCountedAndMissingForTheHoldThenDropped() throws Exception {
        RedissonClient secondClient = fresh.newClient();
        try (InstanceHeartbeat first = started();
                InstanceHeartbeat second = new InstanceHeartbeat(secondClient, new LimiterNaming(), INTERVAL, 0)) {
            second.start(Duration.ofSeconds(5));
            await("both counted", () -> first.instances() == 2 && second.instances() == 2);
            assertThat(first.othersDecidedInMemory()).isFalse();
            secondClient.shutdown(); // stops beating without leaving: crashed, or cut off from Redis
            await("the second missing: it may be deciding in memory", first::othersDecidedInMemory);
            assertThat(first.instances()).as("still counted while missing").isEqualTo(2);
            await("the second dropped after the hold", () -> first.instances() == 1);
        }
    }

    @Test
    void anInstanceThatLeavesIsCountedForTheHoldButNotTakenForOneDecidingInMemory() throws Exception {
        // the first beaten by hand, well within the three intervals after which a late answer counts as a pause of
        // this JVM (which would take the one held for one deciding in memory): a loaded machine's timer may starve
        Duration interval = Duration.ofMillis(500);
        try (InstanceHeartbeat first = new InstanceHeartbeat(fresh.newClient(), new LimiterNaming(), interval, 0)) {
            first.beat(Duration.ofSeconds(5));
            InstanceHeartbeat second = new InstanceHeartbeat(fresh.newClient(), new LimiterNaming(), interval, 0);
            second.start(Duration.ofSeconds(5));
            first.beat(Duration.ofSeconds(5));
            assertThat(first.instances()).as("both counted").isEqualTo(2);
            second.close();
            try (RespClient cli = fresh.endpoint().cli()) {
                assertThat(cli.command("ZCARD", "ratelimit-instances:{rate_limit:}")).as("taken out at once")
                        .isEqualTo(1L);
            }
            long beyondLife = System.nanoTime() + interval.multipliedBy(4).toNanos(); // longer than a heartbeat lives
            while (System.nanoTime() - beyondLife < 0) {
                Thread.sleep(interval.toMillis() / 4);
                first.beat(Duration.ofSeconds(5));
            }
            assertThat(first.othersDecidedInMemory()).as("it left: it decides nothing in memory").isFalse();
            assertThat(first.instances()).as("still counted for the hold").isEqualTo(2);
        }
    }

    @Test
    void anInstanceThatLeavesTellsItsLastGrantInMemory() throws Exception {
        // beaten by hand: the grant is told by the leave only
        try (InstanceHeartbeat first = new InstanceHeartbeat(fresh.newClient(), new LimiterNaming(), BY_HAND, 0)) {
            InstanceHeartbeat second = new InstanceHeartbeat(fresh.newClient(), new LimiterNaming(), BY_HAND, 0);
            second.beat(Duration.ofSeconds(5));
            first.beat(Duration.ofSeconds(5));
            assertThat(first.othersDecidedInMemory()).isFalse();
            long grantedAt = System.nanoTime();
            second.reportInMemoryGrants(() -> (System.nanoTime() - grantedAt) / 1_000_000);
            second.close();
            first.beat(Duration.ofSeconds(5));
            assertThat(first.othersDecidedInMemory()).as("its grant in memory told as it left").isTrue();
            assertThat(Math.abs(first.othersInMemoryAt() - grantedAt)).isLessThan(Duration.ofMillis(500).toNanos());
            second.beat(Duration.ofSeconds(5));
            try (RespClient cli = fresh.endpoint().cli()) {
                assertThat(cli.command("ZCARD", "ratelimit-instances:{rate_limit:}")).as("no beat after leaving")
                        .isEqualTo(1L);
            }
        }
    }

    @Test
    void afterRedisStopsAnsweringForLongerThanTheHeartbeatsLiveNoInstanceCountsItselfAlone() throws Exception {
        try (InstanceHeartbeat first = started(); InstanceHeartbeat second = started()) {
            await("both counted", () -> first.instances() == 2 && second.instances() == 2);
            try (RespClient cli = fresh.endpoint().cli()) {
                // longer than the three intervals a heartbeat lives: every entry has aged out when Redis answers again
                cli.command("CLIENT", "PAUSE", "600", "ALL");
            }
            long until = System.nanoTime() + Duration.ofMillis(2_000).toNanos();
            int lowest = 2;
            while (System.nanoTime() < until) {
                lowest = Math.min(lowest, Math.min(first.instances(), second.instances()));
                Thread.sleep(2);
            }
            assertThat(lowest).isEqualTo(2);
        }
    }

    @Test
    void afterAPauseOfThisJvmLongerThanTheHoldNoInstanceCountsItselfAlone() throws Exception {
        // beaten by hand: neither beats while "paused"
        try (InstanceHeartbeat first = new InstanceHeartbeat(fresh.newClient(), new LimiterNaming(), INTERVAL, 0);
                InstanceHeartbeat second = new InstanceHeartbeat(fresh.newClient(), new LimiterNaming(), INTERVAL, 0)) {
            // each answer awaited (beat() waits two intervals, which a loaded machine may not answer in)
            first.beat(Duration.ofSeconds(5));
            second.beat(Duration.ofSeconds(5));
            first.beat(Duration.ofSeconds(5));
            assertThat(first.instances()).isEqualTo(2);
            Thread.sleep(INTERVAL.toMillis() * (InstanceHeartbeat.HOLD_INTERVALS + 5)); // both heartbeats aged out
            first.beat(Duration.ofSeconds(5));
            assertThat(first.instances()).as("the second may only not have beaten yet").isEqualTo(2);
            assertThat(first.othersDecidedInMemory()).as("the second missing may decide in memory").isTrue();
        }
    }

    @Test
    void anInstanceLearnsWhenAnotherLastGrantedInMemory() throws Exception {
        // beaten by hand, each answer awaited: a timer's beat not answered in two intervals on a loaded machine is a
        // failed one, after which the others may be deciding in memory as of its answer
        try (InstanceHeartbeat first = new InstanceHeartbeat(fresh.newClient(), new LimiterNaming(), BY_HAND, 0);
                InstanceHeartbeat second = new InstanceHeartbeat(fresh.newClient(), new LimiterNaming(), BY_HAND, 0)) {
            first.beat(Duration.ofSeconds(5));
            second.beat(Duration.ofSeconds(5));
            first.beat(Duration.ofSeconds(5));
            assertThat(List.of(first.instances(), second.instances())).as("both counted").containsExactly(2, 2);
            assertThat(second.othersDecidedInMemory()).isFalse();
            long grantedAt = System.nanoTime() - Duration.ofSeconds(30).toNanos();
            first.reportInMemoryGrants(() -> (System.nanoTime() - grantedAt) / 1_000_000);
            first.beat(Duration.ofSeconds(5));
            second.beat(Duration.ofSeconds(5));
            assertThat(second.othersDecidedInMemory()).as("the second told").isTrue();
            assertThat(first.othersDecidedInMemory()).as("its own grants are not another's").isFalse();
            // Redis's clock and this JVM's agree within the round trips of one heartbeat
            assertThat(Math.abs(second.othersInMemoryAt() - grantedAt)).isLessThan(Duration.ofMillis(500).toNanos());
        }
    }
}
