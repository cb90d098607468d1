package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.redissonratelimit.naming.LimiterNaming;


/** {@code ratelimit.*} values, checked in one place ({@link RateLimitProperties#validate}) once bound; no Redis. */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitPropertiesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
            .withBean(RedissonClient.class, NoRedis::redissonClient);

    @Test
    void defaultsMatchTheCoreDefaults() {
        RateLimitProperties properties = new RateLimitProperties();
        assertThat(properties.getKeyPrefix()).isEqualTo(LimiterNaming.DEFAULT_PREFIX);
        assertThat(properties.getMaxKeyLength()).isEqualTo(LimiterNaming.DEFAULT_MAX_KEY_LENGTH);
    }

    @Test
    void theDefaultsAreValid() {
        runner.run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void everyBadValueIsReportedAtOnceNamingThePropertyTheValueAndTheFix() {
        runner.withPropertyValues("ratelimit.key-prefix=app:{x}:", "ratelimit.known-limiters=0",
                "ratelimit.key-ttl=-1s", "ratelimit.local-rejection.max-entries=0",
                "ratelimit.pipelining.max-batch-size=0", "ratelimit.headers.legacy-reset-header=Reset In",
                "ratelimit.policies.checkout.rate=-2").run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("ratelimit.key-prefix must not contain '{' or '}' but was 'app:{x}:'")
                        .hasStackTraceContaining("use a prefix such as 'myapp:rate_limit:'")
                        .hasStackTraceContaining("ratelimit.known-limiters must be at least 1 but was 0")
                        .hasStackTraceContaining("ratelimit.key-ttl must be 0 (no expiry) or positive but was PT-1S")
                        .hasStackTraceContaining("ratelimit.local-rejection.max-entries must be at least 1 but was 0; "
                                + "to turn local rejection off set ratelimit.local-rejection.enabled=false")
                        .hasStackTraceContaining("ratelimit.pipelining.max-batch-size must be at least 1 but was 0")
                        .hasStackTraceContaining("ratelimit.headers.legacy-reset-header must be an HTTP header name "
                                + "(letters, digits and !#$%&'*+-.^_`|~) but was 'Reset In'")
                        .hasStackTraceContaining("ratelimit.policies.checkout.rate must be greater than 0 but was -2"));
    }

    @Test
    void theLivenessTimeoutMustBeLongerThanTheBackendTimeoutAndDefaultsFromIt() {
        runner.withPropertyValues("ratelimit.backend-timeout=200ms", "ratelimit.circuit-breaker.liveness-timeout=200ms")
                .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining(
                        "ratelimit.circuit-breaker.liveness-timeout must be longer than ratelimit.backend-timeout "
                                + "(200ms) but was PT0.2S; set a longer one, or leave it unset"));
        runner.withPropertyValues("ratelimit.backend-timeout=2s").run(context -> assertThat(context
                .getBean(RateLimitProperties.class).getCircuitBreaker().livenessTimeout(Duration.ofSeconds(2)))
                .isEqualTo(Duration.ofSeconds(4)));
        runner.run(context -> assertThat(context.getBean(RateLimitProperties.class).getCircuitBreaker()
                .livenessTimeout(Duration.ofMillis(100))).isEqualTo(Duration.ofSeconds(1)));
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(RateLimitAutoConfiguration.class)
    static class App {
        @Bean
        RedissonClient redissonClient() {
            return NoRedis.redissonClient();
        }
    }

    @Test
    void theFailureReportShowsEachPropertyWithItsValue(CapturedOutput output) {
        SpringApplication application = new SpringApplication(App.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setDefaultProperties(Map.of("ratelimit.max-key-length", "10",
                "ratelimit.circuit-breaker.open-duration", "0s"));
        try {
            application.run();
        }
        catch (RuntimeException expected) {
            // the failure report is what the user reads
        }
        assertThat(output).contains("APPLICATION FAILED TO START", "Property: ratelimit.maxKeyLength", "Value: \"10\"",
                "Origin: \"ratelimit.max-key-length\"",
                "Reason: ratelimit.max-key-length must be at least 51 (a cut key keeps a 43-character digest) but was 10",
                "Property: ratelimit.circuitBreaker.openDuration",
                "Reason: ratelimit.circuit-breaker.open-duration must be positive, e.g. 1s, but was PT0S");
    }
}
