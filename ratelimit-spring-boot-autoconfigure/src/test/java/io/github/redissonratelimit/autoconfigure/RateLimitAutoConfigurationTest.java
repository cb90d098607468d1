package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.interceptor.RateLimitAdvisor;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.key.LimiterNaming;
import io.github.redissonratelimit.limiter.BackendOptions;
import io.github.redissonratelimit.limiter.LimiterClock;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LocalRejectionCache;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.limiter.RedissonRateLimitBackend;
import io.github.redissonratelimit.resilience.ResilientRateLimitBackend;
import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

@ExtendWith(RealRedisExtension.class)
class RateLimitAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, AopAutoConfiguration.class));

    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    @Configuration(proxyBeanMethods = false)
    static class RedissonConfig {
        @Bean(destroyMethod = "shutdown")
        RedissonClient redissonClient(RedisEndpoint redis) {
            return redis.newRedissonClient();
        }

        @Bean
        Greeter greeter() {
            return new Greeter();
        }
    }

    public static class Greeter {
        @RateLimit(key = "'greet:' + #name", rate = 2, interval = 60)
        public String greet(String name) {
            return "hello " + name;
        }
    }

    private ApplicationContextRunner withRedis() {
        return runner.withBean(RedisEndpoint.class, () -> redis).withUserConfiguration(RedissonConfig.class);
    }

    @Test
    void limitsAnnotatedBeansWhenARedissonClientExists() {
        withRedis().run(context -> {
            assertThat(context).hasSingleBean(RateLimitInterceptor.class).hasSingleBean(RateLimitAdvisor.class);
            Greeter greeter = context.getBean(Greeter.class);
            assertThat(AopUtils.isAopProxy(greeter)).isTrue();
            greeter.greet("ann");
            greeter.greet("ann");
            assertThatThrownBy(() -> greeter.greet("ann")).isInstanceOf(RateLimitExceededException.class);
            assertThat(greeter.greet("ben")).isEqualTo("hello ben");
        });
    }

    @Test
    void backsOffWithoutARedissonClientBean() {
        runner.withBean(Greeter.class).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitInterceptor.class)
                    .doesNotHaveBean(RateLimitAdvisor.class);
            assertThat(AopUtils.isAopProxy(context.getBean(Greeter.class))).isFalse();
        });
    }

    @Test
    void backsOffWithoutRedissonOnTheClasspath() {
        runner.withClassLoader(new FilteredClassLoader(RedissonClient.class)).run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitInterceptor.class));
    }

    @Test
    void backsOffWhenDisabled() {
        withRedis().withPropertyValues("ratelimit.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(RateLimitInterceptor.class).doesNotHaveBean(RateLimitAdvisor.class);
            Greeter greeter = context.getBean(Greeter.class);
            for (int i = 0; i < 5; i++) {
                greeter.greet("ann");
            }
        });
    }

    @Test
    void usesTheConfiguredKeyPrefix() {
        withRedis().withPropertyValues("ratelimit.key-prefix=shop:rl:").run(context -> {
            context.getBean(Greeter.class).greet("cleo");
            try (RespClient cli = redis.cli()) {
                assertThat(cli.number("EXISTS", "shop:rl:{greet:cleo}")).isEqualTo(1);
            }
        });
    }

    @Test
    void everyBeanBacksOffForAUserBean() {
        RateLimitBackend alwaysAllow = (name, spec, permits) -> Decision.allow();
        LimiterNaming naming = new LimiterNaming("custom:", 100);
        withRedis().withBean(RateLimitBackend.class, () -> alwaysAllow)
                .withBean(LimiterNaming.class, () -> naming)
                .run(context -> {
                    assertThat(context.getBean(RateLimitBackend.class)).isSameAs(alwaysAllow);
                    assertThat(context.getBean(LimiterNaming.class)).isSameAs(naming);
                    Greeter greeter = context.getBean(Greeter.class);
                    for (int i = 0; i < 5; i++) {
                        greeter.greet("dan");
                    }
                });
    }

    @Test
    void bindsProperties() {
        withRedis().withPropertyValues("ratelimit.max-key-length=64", "ratelimit.order=42",
                "ratelimit.known-limiters=10").run(context -> {
                    RateLimitProperties properties = context.getBean(RateLimitProperties.class);
                    assertThat(properties.getMaxKeyLength()).isEqualTo(64);
                    assertThat(context.getBean(RateLimitAdvisor.class).getOrder()).isEqualTo(42);
                    assertThat(properties.getKnownLimiters()).isEqualTo(10);
                });
    }

    @Test
    void badPropertiesFailStartupNamingTheProperty() {
        withRedis().withPropertyValues("ratelimit.key-prefix=app:{x}:").run(context ->
                assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("ratelimit.key-prefix must not contain '{' or '}'"));
        withRedis().withPropertyValues("ratelimit.max-key-length=10").run(context ->
                assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("ratelimit.max-key-length must be at least 51"));
    }

    @Test
    void rejectsFloodsFromMemoryByDefault() {
        withRedis().run(context -> {
            assertThat(context.getBean(RateLimitBackend.class)).isInstanceOf(LocalRejectionCache.class);
            Greeter greeter = context.getBean(Greeter.class);
            greeter.greet("flo");
            greeter.greet("flo");
            assertThatThrownBy(() -> greeter.greet("flo")).isInstanceOf(RateLimitExceededException.class);

            CommandStats before = redis.commandStats();
            for (int i = 0; i < 20; i++) {
                assertThatThrownBy(() -> greeter.greet("flo")).isInstanceOfSatisfying(RateLimitExceededException.class,
                        ex -> assertThat(ex.getRetryAfter()).isBetween(Duration.ofSeconds(58), Duration.ofSeconds(60)));
            }
            CommandStats delta = redis.commandStats().minus(before);
            assertThat(delta.totalExcept("info", "ping")).as("commands: %s", delta).isZero();
        });
    }

    @Test
    void theScriptsAreInRedisBeforeTheFirstCallSoItIsOneRoundTrip() {
        redis.command("SCRIPT", "FLUSH"); // a cold Redis: no script of ours in its cache
        withRedis().run(context -> {
            CommandStats before = redis.commandStats();
            context.getBean(Greeter.class).greet("warm");
            CommandStats delta = redis.commandStats().minus(before);
            assertThat(delta.calls("evalsha")).as("commands: %s", delta).isEqualTo(1);
            assertThat(delta.calls("eval") + delta.calls("script")).as("no NOSCRIPT, no load: %s", delta).isZero();
        });
    }

    @Test
    void aRedisThatDoesNotAnswerAtWarmUpDoesNotStopTheStartup() {
        withRedis().run(context -> {
            RateLimitScriptWarmUp warmUp = new RateLimitScriptWarmUp(context.getBean(RedissonClient.class),
                    Duration.ofMillis(300));
            redis.command("CLIENT", "PAUSE", "2000", "ALL");
            try {
                warmUp.afterSingletonsInstantiated(); // waits 300 ms, logs a WARN, returns
            }
            finally {
                redis.command("CLIENT", "UNPAUSE");
            }
            context.getBean(Greeter.class).greet("later"); // the first decision loads what is missing
        });
    }

    @Test
    void localRejectionCanBeTurnedOff() {
        withRedis().withPropertyValues("ratelimit.local-rejection.enabled=false").run(context ->
                assertThat(context.getBean(RateLimitBackend.class)).isInstanceOfSatisfying(ResilientRateLimitBackend.class,
                        backend -> assertThat(backend.getDelegate()).isInstanceOf(RedissonRateLimitBackend.class)));
        withRedis().withPropertyValues("ratelimit.local-rejection.max-entries=0").run(context ->
                assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("ratelimit.local-rejection.max-entries must be at least 1"));
    }

    @Test
    void grantsAreStampedWithRedissClockUnlessTheClientsIsAskedFor() {
        withRedis().run(context -> assertThat(redissonBackend(context).getOptions().clock()).isEqualTo(LimiterClock.REDIS));
        withRedis().withPropertyValues("ratelimit.clock=client").run(context -> {
            assertThat(redissonBackend(context).getOptions().clock()).isEqualTo(LimiterClock.CLIENT);
            Greeter greeter = context.getBean(Greeter.class);
            greeter.greet("cleo");
            greeter.greet("cleo");
            assertThatThrownBy(() -> greeter.greet("cleo")).isInstanceOf(RateLimitExceededException.class);
        });
        withRedis().withPropertyValues("ratelimit.clock=sundial").run(context ->
                assertThat(context).hasFailed().getFailure().hasStackTraceContaining("ratelimit.clock"));
    }

    @Test
    void pipeliningIsOnByDefaultAndConfigurable() {
        withRedis().run(context -> assertThat(redissonBackend(context).getOptions())
                .extracting(BackendOptions::pipelineInFlight, BackendOptions::pipelineBatchSize).containsExactly(3, 64));
        withRedis().withPropertyValues("ratelimit.pipelining.max-in-flight=4", "ratelimit.pipelining.max-batch-size=16")
                .run(context -> assertThat(redissonBackend(context).getOptions())
                        .extracting(BackendOptions::pipelineInFlight, BackendOptions::pipelineBatchSize)
                        .containsExactly(4, 16));
        withRedis().withPropertyValues("ratelimit.pipelining.enabled=false").run(context -> {
            assertThat(redissonBackend(context).getOptions().pipelineInFlight()).as("every decision sent at once").isZero();
            Greeter greeter = context.getBean(Greeter.class);
            greeter.greet("pia");
            greeter.greet("pia");
            assertThatThrownBy(() -> greeter.greet("pia")).isInstanceOf(RateLimitExceededException.class);
        });
        withRedis().withPropertyValues("ratelimit.pipelining.max-in-flight=-1").run(context ->
                assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("ratelimit.pipelining.max-in-flight must be 0 (no pipelining) or more but was -1"));
        withRedis().withPropertyValues("ratelimit.pipelining.max-batch-size=0").run(context ->
                assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("ratelimit.pipelining.max-batch-size must be at least 1"));
    }

    @Test
    void maxInFlightZeroTurnsPipeliningOffAsInTheBackendOptions() {
        withRedis().withPropertyValues("ratelimit.pipelining.max-in-flight=0").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(redissonBackend(context).getOptions().pipelineInFlight()).as("every decision sent at once").isZero();
            Greeter greeter = context.getBean(Greeter.class);
            greeter.greet("zed");
            greeter.greet("zed");
            assertThatThrownBy(() -> greeter.greet("zed")).isInstanceOf(RateLimitExceededException.class);
        });
    }

    private static RedissonRateLimitBackend redissonBackend(org.springframework.context.ApplicationContext context) {
        RateLimitBackend outer = context.getBean(RateLimitBackend.class);
        RateLimitBackend resilient = outer instanceof LocalRejectionCache cache ? cache.getDelegate() : outer;
        return (RedissonRateLimitBackend) ((ResilientRateLimitBackend) resilient).getDelegate();
    }

    @Test
    void retryAfterComesFromRedis() {
        withRedis().run(context -> {
            Greeter greeter = context.getBean(Greeter.class);
            greeter.greet("eve");
            greeter.greet("eve");
            assertThatThrownBy(() -> greeter.greet("eve")).isInstanceOfSatisfying(RateLimitExceededException.class,
                    ex -> assertThat(ex.getRetryAfter()).isBetween(Duration.ofSeconds(58), Duration.ofSeconds(60)));
        });
    }
}
