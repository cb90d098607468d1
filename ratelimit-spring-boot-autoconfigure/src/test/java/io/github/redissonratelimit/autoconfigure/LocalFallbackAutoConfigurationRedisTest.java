package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.local.LocalOutagePolicy;
import io.github.redissonratelimit.local.InstanceCount;
import io.github.redissonratelimit.local.LocalFallback;
import io.github.redissonratelimit.redis.membership.InstanceHeartbeat;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

/** The {@code local} outage policy as auto-configured: the heartbeat counts the instances on a real Redis. */
@ExtendWith(RealRedisExtension.class)
class LocalFallbackAutoConfigurationRedisTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, AopAutoConfiguration.class))
            .withPropertyValues("ratelimit.local-fallback.heartbeat-interval=100ms");

    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    private ApplicationContextRunner withRedis() {
        return runner.withBean(RedisEndpoint.class, () -> redis)
                .withUserConfiguration(RateLimitAutoConfigurationRedisTest.RedissonConfig.class);
    }

    @Test
    void twoInstancesCountEachOtherAndTheShareIsHalfTheRate() {
        withRedis().run(first -> withRedis().run(second -> {
            LocalFallback fallback = first.getBean(LocalFallback.class);
            assertThat(first.getBean(RateLimitBackend.class)).as("the local outage policy is the outermost layer")
                    .isInstanceOfSatisfying(LocalOutagePolicy.class,
                            policy -> assertThat(policy.getFallback()).isSameAs(fallback));
            awaitInstances(first, 2);
            awaitInstances(second, 2);
            assertThat(fallback.getInstances().instances()).isEqualTo(2);
            long shares = fallback.getInstances().shareOf(5)
                    + second.getBean(LocalFallback.class).getInstances().shareOf(5);
            assertThat(shares).as("the ranks split the remainder").isEqualTo(5);
            try (RespClient cli = redis.cli()) {
                assertThat(cli.command("ZCARD", "ratelimit-instances:{rate_limit:}")).isEqualTo(2L);
            }
        }));
        try (RespClient cli = redis.cli()) {
            assertThat(cli.command("ZCARD", "ratelimit-instances:{rate_limit:}"))
                    .as("a closed context takes itself out of the count").isEqualTo(0L);
        }
    }

    @Test
    void aFixedInstanceCountWinsOverTheHeartbeat() {
        withRedis().withPropertyValues("ratelimit.local-fallback.instances=4").run(context -> {
            InstanceCount count = context.getBean(LocalFallback.class).getInstances();
            assertThat(count.instances()).isEqualTo(4);
            assertThat(count.source()).isEqualTo("ratelimit.local-fallback.instances");
            assertThat(context.getBean(InstanceHeartbeat.class).instances()).isEqualTo(4);
        });
    }

    @Test
    void grantsMadeInMemoryAreWrittenToRedisWhenItAnswersAgain() throws Exception {
        withRedis().run(context -> {
            LocalFallback fallback = context.getBean(LocalFallback.class);
            RateLimitBackend backend = context.getBean(RateLimitBackend.class);
            LimitSpec spec = new LimitSpec(5, Duration.ofMinutes(1), RateLimitMode.OVERALL);
            String name = new LimiterNaming().limiterName("user:ann");
            assertThat(fallback.decide(name, spec, 2).allowed()).as("granted in memory, Redis not asked").isTrue();
            AcquireRequest request = new AcquireRequest(name, spec, 1, BackendErrorPolicy.LOCAL, false, Duration.ZERO);
            assertThat(backend.acquire(request).toCompletableFuture().get(10, TimeUnit.SECONDS).allowed()).isTrue();
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (fallback.getWrittenBackCount() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            try (RespClient cli = redis.cli()) {
                assertThat(cli.command("ZCARD", LimiterNaming.permitsKey(name))).as("Redis's grant and the one written")
                        .isEqualTo(2L);
                assertThat(cli.string("GET", LimiterNaming.valueKey(name))).isEqualTo("2");
            }
        });
    }

    /**
     * A rolling deployment on a healthy Redis: the second instance decides (and gives permits back) until and while
     * its context closes, Redisson client included; the first, which saw it go, still gets its limits' whole rate
     * from Redis, not its share of them (5 a minute on 2 instances: 2). Calls made on the closing instance after its
     * client shut down get a decision of the outage policy, never an error.
     */
    @Test
    void anInstanceClosingWhileItDecidesLeavesTheOthersTheWholeRate() throws Exception {
        LimitSpec spec = new LimitSpec(5, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        // a hold of 30 s: the second is still counted when the first decides, whatever the waits below take (in one
        // Spring Boot 4 run the calls after closing took 10 s, the whole hold of a 1 s interval)
        ApplicationContextRunner instance = withRedis()
                .withPropertyValues("ratelimit.local-fallback.heartbeat-interval=3s");
        instance.run(first -> {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger decided = new AtomicInteger();
            AtomicInteger decidedBeforeClosed = new AtomicInteger();
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            ExecutorService callers = Executors.newFixedThreadPool(2);
            try {
                instance.run(second -> {
                    awaitInstances(first, 2);
                    awaitInstances(second, 2);
                    RateLimitBackend backend = second.getBean(RateLimitBackend.class);
                    for (int caller = 0; caller < 2; caller++) {
                        String name = new LimiterNaming().limiterName("closing:" + caller);
                        callers.submit(() -> {
                            LimitSpec busy = new LimitSpec(1_000, Duration.ofSeconds(1), RateLimitMode.OVERALL);
                            AcquireRequest request = new AcquireRequest(name, busy, 1, BackendErrorPolicy.LOCAL, false,
                                    Duration.ZERO);
                            while (!stop.get()) {
                                Decision decision;
                                try {
                                    decision = backend.acquire(request).toCompletableFuture().get(10, TimeUnit.SECONDS);
                                }
                                catch (Exception ex) {
                                    failures.add(ex);
                                    continue;
                                }
                                if (decided.incrementAndGet() % 2 == 0 && decision.allowed()) {
                                    // once the client closed a give-back fails (the interceptor logs it, and the
                                    // permits return when the grant leaves the window): not a decision
                                    backend.release(request, decision).toCompletableFuture().handle((done, ex) -> null)
                                            .join();
                                }
                            }
                        });
                    }
                    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                    while (decided.get() < 50 && System.nanoTime() < deadline) {
                        Thread.sleep(5);
                    }
                    assertThat(decided.get()).as("decisions made before closing").isGreaterThanOrEqualTo(50);
                });
                decidedBeforeClosed.set(decided.get());
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (decided.get() < decidedBeforeClosed.get() + 10 && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
            }
            finally {
                stop.set(true);
                callers.shutdown();
                assertThat(callers.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(decided.get()).as("decisions made after closing")
                    .isGreaterThanOrEqualTo(decidedBeforeClosed.get() + 10);
            assertThat(failures).as("calls on the closed instance get a decision").isEmpty();
            try (RespClient cli = redis.cli()) {
                assertThat(cli.command("ZCARD", "ratelimit-instances:{rate_limit:}:in-memory"))
                        .as("no grant in memory told: Redis answered until the client closed").isEqualTo(0L);
            }

            InstanceHeartbeat heartbeat = first.getBean(InstanceHeartbeat.class);
            for (int beat = 0; beat < 2; beat++) {
                heartbeat.beat(); // the second is gone from the heartbeats
            }
            assertThat(heartbeat.instances()).as("still counted for the hold").isEqualTo(2);
            RateLimitBackend backend = first.getBean(RateLimitBackend.class);
            String name = new LimiterNaming().limiterName("after-deployment");
            AcquireRequest request = new AcquireRequest(name, spec, 1, BackendErrorPolicy.LOCAL, false, Duration.ZERO);
            List<Decision> decisions = new ArrayList<>();
            for (int call = 0; call < 6; call++) {
                decisions.add(backend.acquire(request).toCompletableFuture().get(10, TimeUnit.SECONDS));
            }
            assertThat(decisions).as("the whole rate from Redis: %s", decisions).extracting(Decision::allowed)
                    .containsExactly(true, true, true, true, true, false);
            assertThat(decisions).as("none decided in memory").noneMatch(Decision::local);
            try (RespClient cli = redis.cli()) {
                assertThat(cli.string("GET", LimiterNaming.valueKey(name))).as("Redis counted all 5").isEqualTo("0");
            }
            assertThat(first.getBean(LocalFallback.class).getInstances().othersDecidedInMemory())
                    .as("the closed instance is not taken for one deciding in memory").isFalse();
        });
    }

    private static void awaitInstances(ConfigurableApplicationContext context, int expected)
            throws InterruptedException {
        InstanceHeartbeat heartbeat = context.getBean(InstanceHeartbeat.class);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (heartbeat.instances() != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(heartbeat.instances()).isEqualTo(expected);
    }
}
