package io.github.redissonratelimit.autoconfigure.diagnostics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.api.RedissonClient;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.NoRedis;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.RateLimiterUnavailableException;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.UnsupportedRedissonVersionException;
import io.github.redissonratelimit.redis.RedissonCompatibility;

/**
 * Without a {@link RedissonClient} bean the rate limiting auto-configuration backs off: an application that declares
 * limits then fails startup, explained by {@link RateLimiterUnavailableFailureAnalyzer}, instead of running every
 * limit as a no-op; one that declares none starts as usual. No Redis: no client is ever made.
 */
@ExtendWith(OutputCaptureExtension.class)
class NoRedissonClientAutoConfigurationTest {

    @TempDir
    Path dir;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                    NoRedissonClientAutoConfiguration.class, AopAutoConfiguration.class));

    public static class Greeter {
        @RateLimit(key = "'greet:' + #name", rate = 2, interval = 60)
        public String greet(String name) {
            return "hello " + name;
        }

        public String unlimited() {
            return "hi";
        }
    }

    @RateLimit(rate = 10, interval = 1)
    public static class LimitedAsAWhole {
        public String call() {
            return "called";
        }
    }

    public static class Plain {
        public String call() {
            return "plain";
        }
    }

    private static FailureAnalysis analysis(Throwable failure) {
        FailureAnalysis analysis = new RateLimiterUnavailableFailureAnalyzer().analyze(failure);
        assertThat(analysis).as("the analyzer explains %s", failure).isNotNull();
        return analysis;
    }

    @Test
    void anApplicationWithoutLimitsStartsWithoutAClient() {
        runner.withBean(Plain.class).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitInterceptor.class)
                    .hasSingleBean(DeclaredLimitsWithoutLimiterCheck.class);
            assertThat(context.getBean(Plain.class).call()).isEqualTo("plain");
        });
    }

    @Test
    void aLimitedMethodWithoutAClientFailsStartupNamingTheMethodAndTheFixes() {
        runner.withBean(Greeter.class).withBean(Plain.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).isInstanceOfSatisfying(
                    RateLimiterUnavailableException.class, ex -> {
                        assertThat(ex.getDeclarations()).containsExactly(Greeter.class.getName() + ".greet(String)");
                        assertThat(ex.getRedissonVersion()).isEqualTo(RedissonCompatibility.version(
                                RedissonClient.class.getClassLoader())).startsWith("4.");
                        assertThat(ex.getRedissonProblem()).isNull();
                    });
            FailureAnalysis analysis = analysis(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("no rate limiter can be built",
                    "Declared:  " + Greeter.class.getName() + ".greet(String)",
                    "is on the class path, but there is no RedissonClient bean").doesNotContain("unlimited");
            assertThat(analysis.getAction()).contains("org.redisson:redisson-spring-boot-starter",
                    "declare a RedissonClient @Bean", "set ratelimit.enabled=false").doesNotContain("supported Redisson");
        });
    }

    @Test
    void aClassLevelLimitCountsAsADeclaration() {
        runner.withBean(LimitedAsAWhole.class).run(context -> assertThat(context.getStartupFailure())
                .isInstanceOfSatisfying(RateLimiterUnavailableException.class, ex -> assertThat(ex.getDeclarations())
                        .contains(LimitedAsAWhole.class.getName())));
    }

    @Test
    void aConfiguredPolicyWithoutAClientFailsStartupToo() {
        runner.withPropertyValues("ratelimit.policies.order-submit.rate=5", "ratelimit.policies.order-submit.interval=1m")
                .run(context -> assertThat(analysis(context.getStartupFailure()).getDescription())
                        .contains("Declared:  ratelimit.policies.order-submit\n"));
    }

    @Test
    void disabledRateLimitingStartsWithLimitsAndNoClientAndDoesNotLimit() {
        runner.withBean(Greeter.class).withPropertyValues("ratelimit.enabled=false").run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(DeclaredLimitsWithoutLimiterCheck.class);
            Greeter greeter = context.getBean(Greeter.class);
            assertThat(AopUtils.isAopProxy(greeter)).isFalse();
            for (int i = 0; i < 3; i++) {
                assertThat(greeter.greet("ann")).isEqualTo("hello ann");
            }
        });
    }

    @Test
    void withAClientTheCheckIsNotThere() {
        runner.withBean(Greeter.class).withBean(RedissonClient.class, NoRedis::redissonClient).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(RateLimitInterceptor.class)
                    .doesNotHaveBean(DeclaredLimitsWithoutLimiterCheck.class);
        });
    }

    @Test
    void withoutRedissonOnTheClassPathTheFailureSaysSo() {
        runner.withClassLoader(new FilteredClassLoader(RedissonClient.class)).withBean(Greeter.class).run(context -> {
            assertThat(context.getStartupFailure()).isInstanceOfSatisfying(
                    RateLimiterUnavailableException.class, ex -> assertThat(ex.getRedissonVersion()).isNull());
            assertThat(analysis(context.getStartupFailure()).getDescription()).contains("Redisson:  not on the class path");
        });
    }

    @Test
    void anUnsupportedRedissonWithoutAClientIsNamedWithTheRange() {
        runner.withClassLoader(RedissonJarOf.version("3.20.0", dir)).withBean(Greeter.class).run(context -> {
            FailureAnalysis analysis = analysis(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("org.redisson:redisson 3.20.0 is on the class path",
                    "Redisson 3.20.0 cannot run the limiter: it is older than 3.24.3",
                    "supported: " + UnsupportedRedissonVersionException.SUPPORTED_VERSIONS);
            assertThat(analysis.getAction()).contains("use a supported Redisson", "set ratelimit.enabled=false");
        });
    }

    @Test
    void manyDeclarationsAreListedInPart() {
        ApplicationContextRunner many = runner;
        for (int i = 0; i < DeclaredLimitsWithoutLimiterCheck.LISTED + 2; i++) {
            many = many.withPropertyValues("ratelimit.policies.p" + i + ".rate=5");
        }
        many.run(context -> assertThat(analysis(context.getStartupFailure()).getDescription()).contains("and 2 more"));
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ RateLimitAutoConfiguration.class, NoRedissonClientAutoConfiguration.class })
    @Import(Greeter.class)
    static class App {
    }

    /** Through SpringApplication, whose failure analyzers (META-INF/spring.factories) write the report. */
    @Test
    void theApplicationDoesNotStartAndSaysWhy(CapturedOutput output) {
        SpringApplication application = new SpringApplication(App.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatThrownBy(application::run).isInstanceOf(RateLimiterUnavailableException.class);
        assertThat(output).contains("APPLICATION FAILED TO START", "no rate limiter can be built",
                Greeter.class.getName() + ".greet(String)", "set ratelimit.enabled=false");
    }

}
