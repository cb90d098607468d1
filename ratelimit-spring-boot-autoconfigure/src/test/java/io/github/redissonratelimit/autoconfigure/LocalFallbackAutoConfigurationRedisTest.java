package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

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

    private static void awaitInstances(ConfigurableApplicationContext context, int expected) throws InterruptedException {
        InstanceHeartbeat heartbeat = context.getBean(InstanceHeartbeat.class);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (heartbeat.instances() != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(heartbeat.instances()).isEqualTo(expected);
    }
}
