package io.github.redissonratelimit.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import io.github.redissonratelimit.local.OutageRun.Count;
import io.github.redissonratelimit.test.RunsAlone;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RedisSentinelProcess;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * The bound of the {@code LOCAL} outage policy for per-user and global limits: two instances, 40 users calling
 * each about 5 times a second (limit 5 per 2 s) on either instance in turn, and a global limit (60 per 2 s) called
 * 100 times a second, through Redis stalled four times ({@code CLIENT PAUSE} of 300 ms and 1 s) and a Sentinel
 * failover. A user whose calls of a stall reach one instance is granted in memory there, unknown to Redis until the
 * write-back: meanwhile every instance keeps every limiter to its share. Counted by the callers' own log and, until
 * the failover, by Redis's clock too (the scores of the grants callers got, seen in the limiters' windows): every
 * key at most 1.1 x its rate in any window (a user at most 5 of 5).
 */
@RunsAlone
class OutageBoundTest {

    private static final List<Duration> STALLS = List.of(Duration.ofMillis(300), Duration.ofSeconds(1),
            Duration.ofMillis(300), Duration.ofSeconds(1));

    @Test
    void stallsAndAFailoverKeepEveryLimitWithinTheBound() throws Exception {
        assertWithinTheBound(run(true));
    }

    /**
     * The same run without the write-back: the share every limiter keeps for an interval after grants were made in
     * memory is what holds the bound (run on demand, with {@code -Dratelimit.test.without-write-back=true}; before
     * that hold covered every limiter, 13 and 14 users got 6 or 7 of 5 here).
     */
    @Test
    @EnabledIfSystemProperty(named = "ratelimit.test.without-write-back", matches = "true")
    void withoutTheWriteBackTheShareAloneKeepsEveryLimitWithinTheBound() throws Exception {
        assertWithinTheBound(run(false));
    }

    private static void assertWithinTheBound(List<Count> counts) {
        assertThat(counts).allSatisfy(count -> {
            assertThat(count.byCallers()).as(count.toString()).isLessThanOrEqualTo(count.bound());
            assertThat(count.byRedis()).as(count.toString()).isLessThanOrEqualTo(count.bound());
        });
    }

    private static List<Count> run(boolean writeBack) throws Exception {
        try (RedisSentinelProcess sentinel = RedisSentinelProcess.start();
                OutageRun app = new OutageRun(sentinel::newRedissonClient, writeBack)) {
            app.awaitBothCounted();
            app.driveFor(Duration.ofMillis(2_500));
            StringBuilder scenario = new StringBuilder();
            for (Duration stall : STALLS) {
                try (RespClient master = sentinel.master().cli()) {
                    master.command("CLIENT", "PAUSE", String.valueOf(stall.toMillis()), "WRITE");
                }
                scenario.append("stall ").append(stall.toMillis()).append(" ms at ").append(app.elapsedMillis()).append(", ");
                app.driveFor(stall.plus(Duration.ofMillis(1_700)));
            }
            app.stopCountingByRedis();
            RedisEndpoint killed = sentinel.killMaster();
            long killedAt = app.elapsedMillis();
            Thread failover = new Thread(() -> sentinel.awaitNewMaster(killed, Duration.ofSeconds(30)));
            failover.start();
            while (failover.isAlive()) {
                app.driveFor(Duration.ofMillis(100));
            }
            scenario.append("Sentinel master killed at ").append(killedAt).append(" ms, failover after ")
                    .append(app.elapsedMillis() - killedAt).append(" ms");
            app.driveFor(Duration.ofSeconds(4));
            List<Count> counts = app.counts();
            app.report(scenario + (writeBack ? "" : " (write-back disabled)"), counts);
            assertThat(app.errors()).as("no call may fail: the outage policy decides").isEmpty();
            assertThat(app.localAllowed()).as("decisions were made in memory").isPositive();
            if (writeBack) {
                assertThat(app.writtenBack()).as("grants made in memory were written to Redis").isPositive();
            }
            return counts;
        }
    }
}
