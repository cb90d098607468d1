package io.github.redissonratelimit.compat.redisson3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.ClassUtils;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.RedissonVersionCheck;
import io.github.redissonratelimit.test.redis.HeldPermits;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * The starter as a Boot application gets it with Redisson 3 pinned: Redisson's own Boot starter of that version
 * builds the {@code RedissonClient} from {@code spring.data.redis.*}, and the rate limiting auto-configuration
 * must run after it (or it would find no client and quietly limit nothing). The auto-configurations are those the
 * jars on the class path declare, as in an application, not named here.
 */
@ExtendWith(RealRedisExtension.class)
class RedissonStarterTest {

    public static class Greeter {
        @RateLimit(key = "'greet:' + #name", rate = 2, interval = 60)
        public String greet(String name) {
            return "hello " + name;
        }
    }

    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    /**
     * Redisson's auto-configuration, as its jar declares it in its AutoConfiguration.imports, with ours and Boot's
     * AOP one. (Not every auto-configuration on the class path: given as classes, not filtered by name as in an
     * application, the others would be introspected even when what they need is missing, e.g. Micrometer.)
     */
    private static AutoConfigurations declaredAutoConfigurations() {
        ClassLoader classLoader = RedissonStarterTest.class.getClassLoader();
        List<Class<?>> classes = ImportCandidates.load(AutoConfiguration.class, classLoader).getCandidates().stream()
                .filter(name -> name.startsWith("org.redisson.")
                        || name.equals(RateLimitAutoConfiguration.class.getName())
                        || name.equals("org.springframework.boot.autoconfigure.aop.AopAutoConfiguration"))
                .filter(name -> ClassUtils.isPresent(name, classLoader))
                .<Class<?>>map(name -> ClassUtils.resolveClassName(name, classLoader))
                .toList();
        assertThat(classes).as("Redisson's starter declares its auto-configuration")
                .anyMatch(type -> type.getName().startsWith("org.redisson.spring.starter."));
        return AutoConfigurations.of(classes.toArray(Class<?>[]::new));
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner().withConfiguration(declaredAutoConfigurations())
                .withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
                        "ratelimit.backend-timeout=5s")
                .withBean(Greeter.class);
    }

    @Test
    void limitsWithTheClientOfRedissonsStarter() {
        runner().run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(RedissonClient.class);
            assertThat(context.getBean(RedissonClient.class)).isInstanceOf(Redisson.class);
            assertThat(context.getBean(RedissonVersionCheck.class).getVersion())
                    .isEqualTo(System.getProperty("compat.expected-redisson-version"));
            Greeter greeter = context.getBean(Greeter.class);
            assertThat(greeter.greet("ann")).isEqualTo("hello ann");
            assertThat(greeter.greet("ann")).isEqualTo("hello ann");
            assertThatThrownBy(() -> greeter.greet("ann")).isInstanceOf(RateLimitExceededException.class);
            assertThat(greeter.greet("bob")).isEqualTo("hello bob");
            assertThat(redis.number("EXISTS", "rate_limit:{greet:ann}")).isEqualTo(1);
        });
    }

    @Test
    void plainKeysAreTheNamesOfRRateLimitersOfTheSameKey() {
        runner().withPropertyValues("ratelimit.key-style=plain").run(context -> {
            Greeter greeter = context.getBean(Greeter.class);
            greeter.greet("cleo");
            greeter.greet("cleo");
            assertThatThrownBy(() -> greeter.greet("cleo")).isInstanceOf(RateLimitExceededException.class);
            assertThat(redis.number("EXISTS", "rate_limit:greet:cleo")).isEqualTo(1);
            assertThat(HeldPermits.of(redis, "{rate_limit:greet:cleo}:permits")).as("permits held").isEqualTo(2);
            assertThat(context.getBean(RedissonClient.class).getRateLimiter("rate_limit:greet:cleo").availablePermits())
                    .isZero();
        });
    }
}
