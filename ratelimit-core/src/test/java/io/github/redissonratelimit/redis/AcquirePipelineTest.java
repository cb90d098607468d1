package io.github.redissonratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.Calls;
import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RedissonClients;

/**
 * {@link AcquirePipeline}: decisions that arrive while others wait for Redis share round trips, and
 * each stays its own script call with its own answer. {@code CLIENT PAUSE} holds Redis's answers so that
 * the tests know which calls wait in the queue.
 */
@ExtendWith(RealRedisExtension.class)
class AcquirePipelineTest {

    private static final Duration MINUTE = Duration.ofMinutes(1);
    private static final LimitSpec DECLARED = new LimitSpec(7, MINUTE, RateLimitMode.OVERALL);

    @RegisterExtension
    final RedissonClients clients = new RedissonClients();
    private final LimiterNaming naming = new LimiterNaming();
    private RedisEndpoint redis;
    private RedissonClient client;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
        client = clients.create(redis);
    }

    private String limiter(String key, int rate) {
        String name = naming.limiterName(key);
        client.getRateLimiter(name).trySetRate(RateType.OVERALL, rate, MINUTE, Duration.ofHours(1));
        return name;
    }

    /** The round trips of each pipeline, counted on the client it was given. */
    private final Map<AcquirePipeline, SendCounter> sendCounters = new IdentityHashMap<>();

    private AcquirePipeline pipeline(int maxInFlight) {
        SendCounter counter = new SendCounter(client);
        AcquirePipeline pipeline = new AcquirePipeline(counter.client(), AcquireScriptTest.forClient(client.getId()), maxInFlight,
                64, limiterName -> "", false);
        sendCounters.put(pipeline, counter);
        return pipeline;
    }

    private long sends(AcquirePipeline pipeline) {
        return sendCounters.get(pipeline).sends();
    }

    /** Holds every client's commands in Redis for {@code millis}; commands sent meanwhile wait. */
    private void pauseRedis(long millis) {
        redis.command("CLIENT", "PAUSE", Long.toString(millis), "ALL");
    }

    /** A decision on a limiter whose stored config the test wrote (the declared one is used only for a new one). */
    private static CompletableFuture<AcquireScript.Reply> acquire(AcquirePipeline pipeline, String name, long permits) {
        AcquireCall call = new AcquireCall(name, permits, DECLARED, AcquireScript.ConfigCheck.NONE,
                new CompletableFuture<>());
        pipeline.acquire(call);
        return call.result();
    }

    /** 0 when granted, else the milliseconds until the permits can be free. */
    private static long join(CompletableFuture<AcquireScript.Reply> reply) throws Exception {
        return reply.get(30, TimeUnit.SECONDS).waitMillis();
    }

    @Test
    void concurrentDecisionsShareRoundTripsAndStayExact() throws Exception {
        int rate = 300;
        List<String> names = List.of(limiter("shared:a", rate), limiter("shared:b", rate), limiter("shared:c", rate));
        AcquirePipeline pipeline = pipeline(2);
        CommandStats before = redis.commandStats();
        int[] granted = Calls.grantedPerKey(16, 120, names.size(),
                limiter -> join(acquire(pipeline, names.get(limiter), 1)) == 0);
        CommandStats delta = redis.commandStats().minus(before);

        assertThat(granted).containsOnly(rate);
        assertThat(delta.calls("evalsha") + delta.calls("eval")).as("one script call per decision: %s", delta)
                .isEqualTo(16 * 120);
        assertThat(sends(pipeline)).as("round trips for %d decisions", 16 * 120).isLessThan(16 * 120);
        for (String name : names) {
            assertThat(client.getRateLimiter(name).availablePermits()).isZero();
        }
    }

    @Test
    void callsQueuedWhileRedisIsBusyGoInOnePipelineAndAreAnsweredEachOnItsOwn() throws Exception {
        String open = limiter("batch:open", 5);
        String full = limiter("batch:full", 1);
        assertThat(join(acquire(pipeline(0), full, 1))).isZero();
        String created = naming.limiterName("batch:never-configured");
        AcquirePipeline pipeline = pipeline(1);

        pauseRedis(300);
        CompletableFuture<AcquireScript.Reply> first = acquire(pipeline, open, 1);
        CompletableFuture<AcquireScript.Reply> granted = acquire(pipeline, open, 2);
        CompletableFuture<AcquireScript.Reply> rejected = acquire(pipeline, full, 1);
        CompletableFuture<AcquireScript.Reply> creates = acquire(pipeline, created, 1);
        CompletableFuture<AcquireScript.Reply> tooMany = acquire(pipeline, open, 6);

        assertThat(join(first)).isZero();
        assertThat(join(granted)).isZero();
        assertThat(join(rejected)).as("milliseconds until the permit is back").isBetween(50_000L, 60_000L);
        assertThat(join(creates)).as("a limiter without config is created from the declared one in the same call")
                .isZero();
        assertThat(redis.string("HGET", created, "rate")).isEqualTo("7");
        assertThatThrownBy(() -> join(tooMany)).isInstanceOf(ExecutionException.class)
                .hasMessageContaining("Requested permits amount cannot exceed defined rate");
        assertThat(sends(pipeline)).as("the first call alone, then the four queued behind it").isEqualTo(2);
        assertThat(client.getRateLimiter(open).availablePermits()).isEqualTo(2);
    }

    @Test
    void aCallCancelledWhileQueuedIsNeverSent() throws Exception {
        String first = limiter("cancel:first", 5);
        String second = limiter("cancel:second", 5);
        AcquirePipeline pipeline = pipeline(1);

        pauseRedis(300);
        CompletableFuture<AcquireScript.Reply> sent = acquire(pipeline, first, 1);
        CompletableFuture<AcquireScript.Reply> queued = acquire(pipeline, second, 1);
        queued.cancel(false);

        assertThat(join(sent)).isZero();
        assertThat(join(acquire(pipeline, first, 1))).isZero();
        assertThat(sends(pipeline)).isEqualTo(2);
        assertThat(client.getRateLimiter(second).availablePermits()).as("nothing taken").isEqualTo(5);
    }

    @Test
    void callersWhoGiveUpFreeTheirSlotForTheNextCalls() throws Exception {
        String name = limiter("give-up", 5);
        AcquirePipeline pipeline = pipeline(1);

        pauseRedis(1_500);
        long start = System.nanoTime();
        CompletableFuture<AcquireScript.Reply> stuck = acquire(pipeline, name, 1);
        stuck.cancel(false); // what the outage deadline does
        CompletableFuture<AcquireScript.Reply> next = acquire(pipeline, name, 1);
        assertThat(sends(pipeline)).as("sent at once, not after the stuck call's answer").isEqualTo(2);

        assertThat(join(next)).isZero();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(1_000));
    }

    @Test
    void pipelinesSurviveRedisForgettingItsScripts() throws Exception {
        String name = limiter("noscript", 1_000);
        AcquirePipeline pipeline = pipeline(1);
        assertThat(join(acquire(pipeline, name, 1))).isZero(); // Redisson now knows the script as loaded

        redis.command("SCRIPT", "FLUSH"); // as after a restart or a failover to a replica
        pauseRedis(200);
        List<CompletableFuture<AcquireScript.Reply>> calls = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            calls.add(acquire(pipeline, name, 1));
        }
        for (CompletableFuture<AcquireScript.Reply> call : calls) {
            assertThat(join(call)).isZero();
        }
        assertThat(sends(pipeline)).isEqualTo(3);
        assertThat(client.getRateLimiter(name).availablePermits()).isEqualTo(1_000 - 6);
    }

    @Test
    void decisionsMixWithRRateLimitersOwnOnOneLimiter() throws Exception {
        String name = limiter("mixed", 6);
        RRateLimiter redisson = client.getRateLimiter(name);
        AcquirePipeline pipeline = pipeline(2);
        int granted = 0;
        for (int i = 0; i < 10; i++) {
            boolean allowed = i % 2 == 0 ? join(acquire(pipeline, name, 1)) == 0 : redisson.tryAcquire();
            granted += allowed ? 1 : 0;
            assertThat(redisson.availablePermits()).isEqualTo(6 - granted);
        }
        assertThat(granted).isEqualTo(6);
        assertThat(SlicedGrantsTest.heldPermits(redis, LimiterNaming.permitsKey(name))).isEqualTo(6);
    }

    @Test
    void perClientLimitersUseThisClientsKeys() throws Exception {
        String name = naming.limiterName("per-client");
        RedissonClient other = clients.create(redis);
        client.getRateLimiter(name).trySetRate(RateType.PER_CLIENT, 2, MINUTE, Duration.ofHours(1));
        AcquirePipeline mine = pipeline(2);
        AcquirePipeline theirs = new AcquirePipeline(other, AcquireScriptTest.forClient(other.getId()), 2, 64, limiterName -> "", false);

        assertThat(join(acquire(mine, name, 2))).isZero();
        assertThat(join(acquire(mine, name, 1))).isPositive();
        assertThat(join(acquire(theirs, name, 2))).as("another instance has its own bucket").isZero();
        assertThat(redis.number("ZCARD", LimiterNaming.permitsKey(name) + ":" + client.getId())).isEqualTo(1);
        assertThat(redis.number("ZCARD", LimiterNaming.permitsKey(name) + ":" + other.getId())).isEqualTo(1);
        assertThat(redis.number("EXISTS", LimiterNaming.permitsKey(name))).isZero();
    }

    @Test
    void theKeysTtlIsRefreshedOnlyOnceItDroppedBySomeOfTheKeyTtl() throws Exception {
        String name = limiter("ttl", 100);
        AcquirePipeline pipeline = pipeline(2);
        String[] keys = { name, LimiterNaming.valueKey(name), LimiterNaming.permitsKey(name) };
        assertThat(join(acquire(pipeline, name, 1))).isZero(); // creates the counter: all three get the key TTL
        for (String key : keys) {
            assertThat(redis.number("PTTL", key)).as(key).isBetween(3_590_000L, 3_600_000L);
        }

        for (String key : keys) {
            redis.command("PEXPIRE", key, "3500000"); // 100 s of 3600 gone: less than 1/16 (225 s)
        }
        assertThat(join(acquire(pipeline, name, 1))).isZero();
        assertThat(redis.number("PTTL", LimiterNaming.permitsKey(name))).as("not refreshed").isLessThanOrEqualTo(3_500_000L);

        for (String key : keys) {
            redis.command("PEXPIRE", key, "3000000"); // 600 s gone: refreshed
        }
        assertThat(join(acquire(pipeline, name, 1))).isZero();
        for (String key : keys) {
            assertThat(redis.number("PTTL", key)).as(key).isBetween(3_590_000L, 3_600_000L);
        }
    }
}
