package io.github.redissonratelimit.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.local.TwoInstances.Answer;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.RunsAlone;
import io.github.redissonratelimit.test.redis.RedisClusterProcess;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RedisSentinelProcess;

/**
 * The {@code LOCAL} outage policy over a real failover: two instances, requests spread evenly over them, the
 * Sentinel master, or the cluster master of some of the keys, SIGKILLed under load. Grants must stay within 1.1 x the rate in every window, and the
 * instances together must grant (nearly) what one exact limiter would have.
 */
@RunsAlone
class LocalOutagePolicyTest {

    private static final Duration TICK = Duration.ofMillis(25);
    private static final Duration DEADLINE = Duration.ofMillis(250);
    /** A call's midpoint is within this of when its grant was made (calls during the failover wait up to the deadline). */
    private static final Duration CALL_SLACK = DEADLINE;

    @Test
    void aSentinelFailoverKeepsEveryKeyAtItsRateAndGrantsWhatTheLimitWould() throws Exception {
        List<String> users = List.of("ann", "bob", "cid");
        try (RedisSentinelProcess sentinel = RedisSentinelProcess.start();
                TwoInstances app = new TwoInstances(sentinel::newRedissonClient, DEADLINE)) {
            app.awaitBothCounted();
            int tick = 0;
            long start = System.nanoTime();
            tick = drive(app, users, tick, start, Duration.ofSeconds(4));
            RedisEndpoint killed = sentinel.killMaster();
            long killedAt = System.nanoTime();
            Thread failover = new Thread(() -> sentinel.awaitNewMaster(killed, Duration.ofSeconds(30)));
            failover.start();
            while (failover.isAlive()) {
                tick = drive(app, users, tick, start, Duration.ofNanos(System.nanoTime() - start).plus(TICK));
            }
            long failoverMillis = (System.nanoTime() - killedAt) / 1_000_000;
            drive(app, users, tick, start, Duration.ofNanos(System.nanoTime() - start).plus(Duration.ofSeconds(5)));

            assertAtTheRate(app, "Sentinel master killed at " + (killedAt - start) / 1_000_000 + " ms, failover after "
                    + failoverMillis + " ms");
        }
    }

    @Test
    void aKilledClusterMasterKeepsEveryKeyAtItsRateAndGrantsWhatTheLimitWould() throws Exception {
        List<String> users = List.of("ann", "bob", "cid", "dan", "eve", "fay");
        try (RedisClusterProcess cluster = RedisClusterProcess.start(3, 1, false);
                TwoInstances app = new TwoInstances(cluster::newRedissonClient, DEADLINE)) {
            app.awaitBothCounted();
            int shard = cluster.nodeOf(new LimiterNaming().limiterName("detail"));
            long onKilled = users.stream().filter(user -> cluster.nodeOf(
                    new LimiterNaming().limiterName("submit:" + user)) == shard).count();
            int tick = 0;
            long start = System.nanoTime();
            tick = drive(app, users, tick, start, Duration.ofSeconds(4));
            cluster.killMaster(shard);
            long killedAt = System.nanoTime();
            Thread failover = new Thread(() -> cluster.awaitPromotion(shard, Duration.ofSeconds(30)));
            failover.start();
            while (failover.isAlive()) {
                tick = drive(app, users, tick, start, Duration.ofNanos(System.nanoTime() - start).plus(TICK));
            }
            long failoverMillis = (System.nanoTime() - killedAt) / 1_000_000;
            drive(app, users, tick, start, Duration.ofNanos(System.nanoTime() - start).plus(Duration.ofSeconds(5)));
            assertAtTheRate(app, "Cluster master of shard " + shard + " killed (the detail page and " + onKilled
                    + " of 6 users on it) at " + (killedAt - start) / 1_000_000 + " ms, promotion after " + failoverMillis + " ms");
        }
    }

    /**
     * Grants within 1.1 x the rate in every window for every key, and fewer than 1% of what an exact limiter
     * would have granted refused for good (5% per key, where one grant weighs 2%; see {@link OutageAccounting}).
     */
    private static void assertAtTheRate(TwoInstances app, String scenario) {
        List<OutageAccounting> accounts = account(app);
        LocalFallback first = app.localFallback(0);
        LocalFallback second = app.localFallback(1);
        System.out.printf("[local-fallback] %s; local decisions %d allowed / %d rejected (instance 1), %d / %d "
                + "(instance 2); errors %s%n", scenario, first.getAllowedCount(), first.getRejectedCount(),
                second.getAllowedCount(), second.getRejectedCount(), app.errors);
        accounts.forEach(account -> System.out.println("[local-fallback]   " + account));
        int ideal = accounts.stream().mapToInt(OutageAccounting::idealGranted).sum();
        int refusedShort = accounts.stream().mapToInt(OutageAccounting::refusedShort).sum();
        int shortAtTheEnd = accounts.stream().mapToInt(account -> Math.max(0, account.idealGranted() - account.granted()))
                .sum();
        System.out.printf("[local-fallback]   refused short of an exact limiter for good: %d of %d (%.2f%%; at the run's "
                + "end: %d)%n", refusedShort, ideal, 100.0 * refusedShort / ideal, shortAtTheEnd);

        assertThat(app.errors).as("no call may fail: the outage policy decides").isEmpty();
        assertThat(first.getAllowedCount() + second.getAllowedCount()).as("decisions were made in memory").isPositive();
        assertThat(accounts).allSatisfy(account -> {
            assertThat(account.maxInWindow()).as(account.toString())
                    .isLessThanOrEqualTo((int) Math.floor(account.rate() * 1.1));
            assertThat(account.wronglyRefused()).as(account.toString()).isLessThan(0.05);
        });
        assertThat(refusedShort).as("of %d grants an exact limiter would make", ideal)
                .isLessThan((int) Math.ceil(ideal * 0.01));
    }

    private static int drive(TwoInstances app, List<String> users, int tick, long start, Duration until)
            throws InterruptedException {
        while (System.nanoTime() - start < until.toNanos()) {
            long tickStart = System.nanoTime();
            app.tick(tick++, users);
            long rest = TICK.toNanos() - (System.nanoTime() - tickStart);
            if (rest > 0) {
                Thread.sleep(rest / 1_000_000, (int) (rest % 1_000_000));
            }
        }
        return tick;
    }

    private static List<OutageAccounting> account(TwoInstances app) {
        List<OutageAccounting> accounts = new ArrayList<>();
        Duration window = TwoInstances.INTERVAL.minus(CALL_SLACK);
        for (Map.Entry<String, List<Answer>> entry : app.answersByKey().entrySet()) {
            long rate = entry.getKey().equals("detail") ? TwoInstances.DETAIL_RATE : TwoInstances.USER_RATE;
            accounts.add(OutageAccounting.of(entry.getKey(), rate, entry.getValue(), TwoInstances.INTERVAL, window));
        }
        return accounts;
    }
}
