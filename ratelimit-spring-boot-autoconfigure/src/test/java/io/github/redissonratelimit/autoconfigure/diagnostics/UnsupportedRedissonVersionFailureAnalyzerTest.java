package io.github.redissonratelimit.autoconfigure.diagnostics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.api.RedissonClient;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.DefaultResourceLoader;

import io.github.redissonratelimit.UnsupportedRedissonVersionException;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.RedissonVersionCheck;

/**
 * A Redisson the limiter cannot run on fails startup, explained by {@link UnsupportedRedissonVersionFailureAnalyzer}
 * with the version found and the supported range. The old Redisson is simulated by a class loader that shows the
 * Maven coordinates of Redisson 3.17.7 (the classes stay those of this build's Redisson): no Redis is needed, the
 * check runs before any call.
 */
@ExtendWith(OutputCaptureExtension.class)
class UnsupportedRedissonVersionFailureAnalyzerTest {

    @TempDir
    Path dir;


    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
            .withBean(RedissonClient.class, () -> mock(RedissonClient.class));

    @Test
    void theRedissonOfTheBuildPassesTheCheck() {
        runner.run(context -> assertThat(context).hasNotFailed().getBean(RedissonVersionCheck.class)
                .extracting(RedissonVersionCheck::getVersion).asString().startsWith("4."));
    }

    @Test
    void anOldRedissonFailsTheContextWithTheVersionAndTheRange() {
        runner.withClassLoader(RedissonJarOf.version("3.17.7", dir)).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new UnsupportedRedissonVersionFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("Found:     org.redisson:redisson 3.17.7",
                    "Problem:   it is older than 3.24.3",
                    "Supported: 3.24.3 to 3.52.0 and 4.0.0 to 4.7.0 (tested: 3.24.3, 3.52.0 and 4.7.0)");
            assertThat(analysis.getAction()).contains("org.redisson:redisson-spring-boot-starter");
            assertThat(analysis.getCause()).isInstanceOf(UnsupportedRedissonVersionException.class);
        });
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(RateLimitAutoConfiguration.class)
    static class App {
        @Bean
        RedissonClient redissonClient() {
            return mock(RedissonClient.class);
        }
    }

    /** Through SpringApplication, whose failure analyzers (META-INF/spring.factories) write the report. */
    @Test
    void theApplicationDoesNotStartAndSaysWhy(CapturedOutput output) {
        SpringApplication application = new SpringApplication(App.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setResourceLoader(new DefaultResourceLoader(RedissonJarOf.version("3.20.1", dir)));
        try {
            application.run();
        }
        catch (RuntimeException expected) {
            // the failure report is what the user reads
        }
        assertThat(output).contains("APPLICATION FAILED TO START",
                "The Redisson on the class path cannot run @RateLimit.", "Found:     org.redisson:redisson 3.20.1",
                "Supported: 3.24.3 to 3.52.0", "Use a supported Redisson");
    }
}
