package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.limiter.LocalRejectionCache;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

@ExtendWith(RealRedisExtension.class)
/**
 * What the auto-configured limits do on a real Redis. When the auto-configuration applies and how properties reach
 * the beans is in {@link RateLimitAutoConfigurationTest}, which starts no Redis.
 */
class RateLimitAutoConfigurationRedisTest {

    /**
     * The tests count grants, so no decision may time out into {@code on-backend-error=allow}: the default 100 ms
     * can be exceeded on a loaded 2-core build machine (these tests also run in the Boot 4 modules).
     */
    static final String TEST_BACKEND_TIMEOUT = "ratelimit.backend-timeout=5s";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, AopAutoConfiguration.class))
            .withPropertyValues(TEST_BACKEND_TIMEOUT);

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
            Greeter greeter = context.getBean(Greeter.class);
            greeter.greet("ann");
            greeter.greet("ann");
            assertThatThrownBy(() -> greeter.greet("ann")).isInstanceOf(RateLimitExceededException.class);
            assertThat(greeter.greet("ben")).isEqualTo("hello ben");
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
    void rejectsFloodsFromMemoryByDefault() {
        withRedis().run(context -> {
            TestBackends.layer(context.getBean(RateLimitBackend.class), LocalRejectionCache.class);
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
    void limitsOnTheClientsClockAndWithoutPipeliningToo() {
        for (String property : new String[] { "ratelimit.clock=client", "ratelimit.pipelining.enabled=false",
                "ratelimit.pipelining.max-in-flight=0" }) {
            withRedis().withPropertyValues(property).run(context -> {
                Greeter greeter = context.getBean(Greeter.class);
                greeter.greet("pia");
                greeter.greet("pia");
                assertThatThrownBy(() -> greeter.greet("pia")).as(property).isInstanceOf(RateLimitExceededException.class);
            });
            redis.flushAll();
        }
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
