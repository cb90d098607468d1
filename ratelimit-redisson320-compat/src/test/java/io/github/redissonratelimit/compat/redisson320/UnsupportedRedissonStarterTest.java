package io.github.redissonratelimit.compat.redisson320;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RScript;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import io.github.redissonratelimit.UnsupportedRedissonVersionException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.RateLimiterUnavailableException;
import io.github.redissonratelimit.redis.RedissonCompatibility;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * An application with {@code redisson-spring-boot-starter} 3.20.0 pinned: Redisson's own auto-configuration of
 * that version ({@code RedissonAutoConfiguration}, the name it had before 3.24) builds the client from
 * {@code spring.data.redis.*}, the rate limiting auto-configuration runs after it and refuses the version, and the
 * application does not start, its failure report naming the version and the supported range. Every
 * auto-configuration on the class path applies, as in an application.
 */
@ExtendWith({ RealRedisExtension.class, OutputCaptureExtension.class })
class UnsupportedRedissonStarterTest {

    public static class Greeter {
        @RateLimit(key = "'greet:' + #name", rate = 2, interval = 60)
        public String greet(String name) {
            return "hello " + name;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(Greeter.class)
    static class App {
    }

    private static Throwable start(RedisEndpoint redis, String... properties) {
        SpringApplication application = new SpringApplication(App.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        String[] args = new String[properties.length + 2];
        args[0] = "--spring.data.redis.host=" + redis.host();
        args[1] = "--spring.data.redis.port=" + redis.port();
        System.arraycopy(properties, 0, args, 2, properties.length);
        return catchThrowable(() -> application.run(args).close());
    }

    @Test
    void theTestsRunOnRedisson320AndItsStarterDeclaresTheOldAutoConfigurationName() {
        assertThat(System.getProperty("compat.expected-redisson-version")).isEqualTo("3.20.0");
        assertThat(RedissonCompatibility.version(getClass().getClassLoader())).isEqualTo("3.20.0");
        assertThat(RScript.class.getPackage().getImplementationVersion()).isEqualTo("3.20.0");
        assertThat(getClass().getClassLoader().getResource("org/redisson/spring/starter/RedissonAutoConfiguration.class"))
                .isNotNull();
        assertThat(getClass().getClassLoader().getResource("org/redisson/spring/starter/RedissonAutoConfigurationV2.class"))
                .as("introduced by 3.24").isNull();
    }

    /**
     * The beans that refuse the version (the check, or the Redis backend when something needs it first, such as the
     * health indicator) are the rate limiting auto-configuration's, which applies only with a RedissonClient bean: the
     * application declares none, so the failure shows that Redisson's 3.20.0 auto-configuration ran first.
     */
    @Test
    void theApplicationFailsToStartNamingTheVersion(RedisEndpoint redis, CapturedOutput output) {
        Throwable failure = start(redis);
        assertThat(failure).isInstanceOf(BeanCreationException.class)
                .hasMessageMatching("(?s)Error creating bean with name '(rateLimitRedissonVersionCheck|redissonRateLimitBackend)'.*")
                .rootCause().isInstanceOfSatisfying(UnsupportedRedissonVersionException.class,
                        ex -> assertThat(ex.getVersion()).isEqualTo("3.20.0"));
        assertThat(output).contains("APPLICATION FAILED TO START",
                "The Redisson on the class path cannot run @RateLimit.", "Found:     org.redisson:redisson 3.20.0",
                "Problem:   it is older than 3.24.3", "Supported: " + UnsupportedRedissonVersionException.SUPPORTED_VERSIONS,
                "Use a supported Redisson");
    }

    /** With Redisson's auto-configuration excluded there is no client at all: the report names the version too. */
    @Test
    void withoutItsClientTheFailureNamesTheVersionAsWell(RedisEndpoint redis, CapturedOutput output) {
        Throwable failure = start(redis,
                "--spring.autoconfigure.exclude=org.redisson.spring.starter.RedissonAutoConfiguration");
        assertThat(failure).isInstanceOfSatisfying(RateLimiterUnavailableException.class, ex -> {
            assertThat(ex.getRedissonVersion()).isEqualTo("3.20.0");
            assertThat(ex.getDeclarations()).containsExactly(Greeter.class.getName() + ".greet(String)");
        });
        assertThat(output).contains("APPLICATION FAILED TO START", "no rate limiter can be built",
                "Redisson 3.20.0 cannot run the limiter: it is older than 3.24.3", "use a supported Redisson",
                "set ratelimit.enabled=false");
    }
}
