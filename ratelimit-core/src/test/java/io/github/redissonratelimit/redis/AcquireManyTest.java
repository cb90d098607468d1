package io.github.redissonratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.resilience.ResilientRateLimitBackend;
import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * The decisions of one call asked together ({@code acquireAll}) are decided in one script call
 * ({@code acquire-many.lua}) on a standalone Redis, each exactly as its own call would decide it.
 */
class AcquireManyTest {

    private static final Duration MINUTE = Duration.ofMinutes(1);
    private static final LimitSpec THREE = new LimitSpec(3, MINUTE, RateLimitMode.OVERALL);
    private static final LimitSpec FIVE = new LimitSpec(5, MINUTE, RateLimitMode.OVERALL);

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();
    private final LimiterNaming naming = new LimiterNaming();
    private RedissonClient client;

    @BeforeEach
    void setUp() {
        client = fresh.newClient();
        RedissonRateLimitBackend.loadScripts(client).toCompletableFuture().join();
    }

    /** The decisions of {@code user} and {@code region}, asked as the interceptor asks one call's limits. */
    private static List<CompletableFuture<Decision>> together(RedissonRateLimitBackend backend, String user,
            long userPermits, String region) {
        return futures(backend.acquireAll(List.of(AcquireRequest.of(user, THREE, userPermits),
                AcquireRequest.of(region, FIVE, 1))));
    }

    private static List<CompletableFuture<Decision>> futures(List<CompletionStage<Decision>> stages) {
        return stages.stream().map(CompletionStage::toCompletableFuture).toList();
    }

    private static Decision join(CompletableFuture<Decision> decision) throws Exception {
        return decision.get(30, TimeUnit.SECONDS);
    }

    @Test
    void theLimitsOfOneCallCostOneScriptCall() throws Exception {
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);
        String user = naming.limiterName("user:ann");
        String region = naming.limiterName("region:eu");
        join(backend.acquire(naming.limiterName("warm-up"), THREE, 1));

        CommandStats before = redis.commandStats();
        List<CompletableFuture<Decision>> decisions = together(backend, user, 1, region);
        assertThat(join(decisions.get(0)).allowed()).isTrue();
        assertThat(join(decisions.get(1)).allowed()).isTrue();
        CommandStats delta = redis.commandStats().minus(before);

        assertThat(delta.calls("evalsha") + delta.calls("eval")).as("%s", delta).isEqualTo(1);
        assertThat(client.getRateLimiter(user).availablePermits()).isEqualTo(2);
        assertThat(client.getRateLimiter(region).availablePermits()).isEqualTo(4);
    }

    @Test
    void decisionsMadeTogetherEqualThoseMadeApart() throws Exception {
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);
        String userTogether = naming.limiterName("together:user");
        String regionTogether = naming.limiterName("together:region");
        String userApart = naming.limiterName("apart:user");
        String regionApart = naming.limiterName("apart:region");

        CommandStats before = redis.commandStats();
        for (int i = 0; i < 10; i++) {
            List<CompletableFuture<Decision>> merged = together(backend, userTogether, 1, regionTogether);
            Decision userMerged = join(merged.get(0));
            Decision regionMerged = join(merged.get(1));
            Decision userAlone = join(backend.acquire(userApart, THREE, 1));
            Decision regionAlone = join(backend.acquire(regionApart, FIVE, 1));

            assertThat(userMerged.allowed()).as("user, call %d", i).isEqualTo(userAlone.allowed()).isEqualTo(i < 3);
            assertThat(regionMerged.allowed()).as("region, call %d", i).isEqualTo(regionAlone.allowed())
                    .isEqualTo(i < 5);
            assertThat(userMerged.state().available()).isEqualTo(userAlone.state().available());
            assertThat(regionMerged.state().available()).isEqualTo(regionAlone.state().available());
            assertSameWait(userMerged, userAlone);
            assertSameWait(regionMerged, regionAlone);
        }
        CommandStats delta = redis.commandStats().minus(before);
        assertThat(delta.calls("evalsha") + delta.calls("eval")).as("10 merged and 20 apart: %s", delta)
                .isEqualTo(30);
    }

    private static void assertSameWait(Decision together, Decision apart) {
        assertThat(together.retryAfter()).isBetween(apart.retryAfter().minusSeconds(1),
                apart.retryAfter().plusSeconds(1));
        if (!together.allowed()) {
            assertThat(together.retryAfter()).isBetween(Duration.ofSeconds(55), MINUTE);
        }
    }

    @Test
    void concurrentCallsDecidedTogetherStayExact() throws Exception {
        // one send in flight: the merged calls of many threads queue up and leave in batches of several
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client,
                new BackendOptions(1_000, Duration.ofHours(1), ConfigChangePolicy.UPDATE, 1, 64));
        LimitSpec forty = new LimitSpec(40, MINUTE, RateLimitMode.OVERALL);
        LimitSpec twoHundred = new LimitSpec(200, MINUTE, RateLimitMode.OVERALL);
        String region = naming.limiterName("concurrent:region");
        List<String> users = java.util.stream.IntStream.range(0, 4)
                .mapToObj(i -> naming.limiterName("concurrent:user:" + i)).toList();
        java.util.concurrent.atomic.AtomicIntegerArray userGrants = new java.util.concurrent.atomic.AtomicIntegerArray(4);
        java.util.concurrent.atomic.AtomicInteger regionGrants = new java.util.concurrent.atomic.AtomicInteger();

        CommandStats before = redis.commandStats();
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(16);
        try {
            List<java.util.concurrent.Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                int user = t % 4;
                done.add(threads.submit(() -> {
                    for (int i = 0; i < 60; i++) {
                        List<CompletableFuture<Decision>> decisions = futures(backend.acquireAll(List.of(
                                AcquireRequest.of(users.get(user), forty, 1), AcquireRequest.of(region, twoHundred, 1))));
                        userGrants.addAndGet(user, decisions.get(0).join().allowed() ? 1 : 0);
                        regionGrants.addAndGet(decisions.get(1).join().allowed() ? 1 : 0);
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> thread : done) {
                thread.get(60, TimeUnit.SECONDS);
            }
        }
        finally {
            threads.shutdownNow();
        }
        CommandStats delta = redis.commandStats().minus(before);

        for (int i = 0; i < 4; i++) {
            assertThat(userGrants.get(i)).as("user %d", i).isEqualTo(40);
        }
        assertThat(regionGrants.get()).isEqualTo(200);
        assertThat(delta.calls("evalsha") + delta.calls("eval")).as("one script call per call: %s", delta)
                .isEqualTo(16 * 60);
    }

    @Test
    void aGrantOfACallRejectedByItsOtherLimitIsGivenBackAsBefore() throws Exception {
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);
        String user = naming.limiterName("refund:user");
        String region = naming.limiterName("refund:region");
        for (int i = 0; i < 3; i++) {
            together(backend, user, 1, region).forEach(CompletableFuture::join);
        }

        List<CompletableFuture<Decision>> decisions = together(backend, user, 1, region);
        assertThat(join(decisions.get(0)).allowed()).isFalse();
        assertThat(join(decisions.get(1)).allowed()).as("decided on its own").isTrue();
        backend.release(AcquireRequest.of(region, FIVE, 1), Decision.allow()).toCompletableFuture().get(30, TimeUnit.SECONDS); // what the caller does

        assertThat(client.getRateLimiter(region).availablePermits()).isEqualTo(2);
        assertThat(SlicedGrantsTest.heldPermits(redis, LimiterNaming.permitsKey(region))).isEqualTo(3);
    }

    @Test
    void anErrorOfOneLimitFailsOnlyItsOwnDecisionAndIsNoOutage() throws Exception {
        RedissonRateLimitBackend redisBackend = new RedissonRateLimitBackend(client);
        ResilientRateLimitBackend backend = new ResilientRateLimitBackend(redisBackend, Duration.ofSeconds(5), 3,
                Duration.ofSeconds(10));
        String user = naming.limiterName("error:user");
        String region = naming.limiterName("error:region");

        CommandStats before = redis.commandStats();
        List<CompletableFuture<Decision>> decisions = futures(backend.acquireAll(List.of(
                AcquireRequest.of(user, THREE, 4), AcquireRequest.of(region, FIVE, 1))));
        assertThatThrownBy(decisions.get(0)::join).isInstanceOf(CompletionException.class)
                .cause().isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Requested permits amount cannot exceed defined rate")
                .hasMessageContaining(user).hasMessageContaining("4 permits").hasMessageContaining("rate is 3");
        assertThat(join(decisions.get(1)).allowed()).isTrue();
        CommandStats delta = redis.commandStats().minus(before);
        assertThat(delta.calls("evalsha") + delta.calls("eval")).as("%s", delta).isEqualTo(1);
        assertThat(backend.getFailureCount()).as("a script error is not Redis failing").isZero();

        assertThatThrownBy(() -> backend.acquire(user, THREE, 4).toCompletableFuture().join())
                .as("the same call alone fails the same way").cause().isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Requested permits amount cannot exceed defined rate");
    }

    @Test
    void aCommandErrorOfOneLimitFailsOnlyItsOwnDecisionAsTheScriptErrorItIs() throws Exception {
        ResilientRateLimitBackend backend = new ResilientRateLimitBackend(new RedissonRateLimitBackend(client),
                Duration.ofSeconds(5), 3, Duration.ofSeconds(10));
        String user = naming.limiterName("wrongtype:user");
        String region = naming.limiterName("wrongtype:region");
        redis.command("SET", LimiterNaming.permitsKey(user), "not a zset");

        List<CompletableFuture<Decision>> decisions = futures(backend.acquireAll(List.of(
                AcquireRequest.of(user, THREE, 1), AcquireRequest.of(region, FIVE, 1))));
        assertThatThrownBy(decisions.get(0)::join).cause().isInstanceOf(RedisException.class)
                .hasMessageStartingWith("WRONGTYPE").hasMessageContaining("user_script");
        assertThat(join(decisions.get(1)).allowed()).isTrue();
        assertThat(backend.getFailureCount()).as("a script's error, not Redis failing").isZero();
    }

    @Test
    void eachLimitersErrorIsAnsweredInItsPlace() {
        List<Object> keys = new ArrayList<>();
        AcquireScript script = AcquireScriptTest.forClient(client.getId());
        String good = naming.limiterName("script:good");
        keys.addAll(script.keys(naming.limiterName("script:bad")));
        keys.addAll(script.keys(good));
        List<Object> replies = client.getScript(StringCodec.INSTANCE).eval(good, RScript.Mode.READ_WRITE,
                LuaScripts.ACQUIRE_MANY.text(), RedissonCompatibility.LIST, keys, "not an argument",
                script.argument(new AcquireCall(good, 1, FIVE, AcquireScript.ConfigCheck.NONE, new CompletableFuture<>())));

        assertThat(replies).hasSize(2);
        assertThat((List<?>) replies.get(0)).as("a Lua error of the decision, as its status and text")
                .first().isEqualTo(-3L);
        assertThat(((List<?>) replies.get(0)).get(1)).asString().startsWith("user_script:")
                .contains("redisson-ratelimit: malformed acquire argument");
        assertThat(AcquireScript.Reply.parse((List<?>) replies.get(1)).waitMillis()).isZero();
        assertThat(client.getRateLimiter(good).availablePermits()).isEqualTo(4);
    }

    @Test
    void aBatchHoldsNothingBeyondItsOwnRequests() throws Exception {
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);
        String user = naming.limiterName("scope:user");
        List<CompletableFuture<Decision>> batch = futures(backend.acquireAll(List.of(AcquireRequest.of(user, THREE, 1),
                AcquireRequest.of(naming.limiterName("scope:region"), FIVE, 1))));
        CompletableFuture<Decision> elsewhere = CompletableFuture
                .supplyAsync(() -> backend.acquire(naming.limiterName("scope:other"), THREE, 1))
                .thenCompose(decision -> decision);
        assertThat(join(elsewhere).allowed()).as("another thread's acquire is its own").isTrue();
        assertThat(join(batch.get(0)).allowed()).isTrue();
        assertThat(join(batch.get(1)).allowed()).isTrue();
        assertThat(join(backend.acquire(user, THREE, 1)).allowed()).as("sent at once after it").isTrue();
    }
}
