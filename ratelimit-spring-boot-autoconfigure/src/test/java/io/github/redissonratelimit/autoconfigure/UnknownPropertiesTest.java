package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import io.github.redissonratelimit.autoconfigure.names.UnknownProperty;
import io.github.redissonratelimit.autoconfigure.names.UnknownRateLimitPropertiesException;

/** A property under {@code ratelimit.} that names no setting fails startup (or warns) naming the nearest valid one. */
@ExtendWith(OutputCaptureExtension.class)
class UnknownPropertiesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
            .withBean(RedissonClient.class, NoRedis::redissonClient);

    @Test
    void aMisspeltGroupFailsStartupNamingTheValidName() {
        runner.withPropertyValues("ratelimit.polices.x.rate=5").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().isInstanceOfSatisfying(UnknownRateLimitPropertiesException.class,
                        ex -> assertThat(ex.getProperties()).extracting(UnknownProperty::name, UnknownProperty::suggestion)
                                .containsExactly(org.assertj.core.groups.Tuple.tuple("ratelimit.polices.x.rate",
                                        "ratelimit.policies.x.rate"))));
    }

    @Test
    void aMisspeltSettingOfAPolicyFailsStartupNamingTheValidName() {
        runner.withPropertyValues("ratelimit.policies.x.rat=5").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().isInstanceOf(UnknownRateLimitPropertiesException.class)
                .hasMessageContaining("ratelimit.policies.x.rat (did you mean ratelimit.policies.x.rate?)"));
    }

    @Test
    void aMisspeltSettingOfATierFailsStartupNamingTheValidName() {
        runner.withPropertyValues("ratelimit.policies.api.rate=5", "ratelimit.policies.api.tiers.gold.permts=2")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("ratelimit.policies.api.tiers.gold.permts "
                                + "(did you mean ratelimit.policies.api.tiers.gold.permits?)"));
    }

    @Test
    void everyUnknownPropertyIsReportedAtOnce() {
        runner.withPropertyValues("ratelimit.keyPrefx=app:", "ratelimit.headers.styl=legacy",
                "ratelimit.circuit-breaker.open-duraton=2s").run(context -> assertThat(context).hasFailed()
                        .getFailure().rootCause().isInstanceOfSatisfying(UnknownRateLimitPropertiesException.class,
                                ex -> assertThat(ex.getProperties()).extracting(UnknownProperty::suggestion)
                                        .containsExactlyInAnyOrder("ratelimit.key-prefix", "ratelimit.headers.style",
                                                "ratelimit.circuit-breaker.open-duration")));
    }

    @Test
    void validNamesInEveryRelaxedFormPass() {
        runner.withPropertyValues("ratelimit.key-prefix=app:", "ratelimit.maxKeyLength=100",
                "ratelimit.known-limiters=10", "ratelimit.policies.x.rate=5", "ratelimit.policies[y.z].interval=1m",
                "ratelimit.policies.x.on-backend-error=allow", "ratelimit.policies.x.tiers.gold.rate=50",
                "ratelimit.policies.x.tiers[free].permits=2", "ratelimit.defaults.mode=per-client",
                "ratelimit.local-fallback.heartbeatInterval=2s", "ratelimit.circuit-breaker.failure-threshold=3",
                "ratelimit.headers.legacy-reset-header=X-Reset", "ratelimit.unknown-properties=fail")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RateLimitProperties properties = context.getBean(RateLimitProperties.class);
                    assertThat(properties.getMaxKeyLength()).isEqualTo(100);
                    assertThat(properties.getPolicies()).containsKeys("x", "y.z");
                });
    }

    @Test
    void environmentVariablesArePassedInTheirOwnForm() {
        runner.withInitializer(context -> context.getEnvironment().getPropertySources()
                .addFirst(new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                        Map.of("RATELIMIT_POLICIES_X_RATE", "5", "RATELIMIT_KEY_PREFIX", "env:",
                                "RATELIMIT_MAXKEYLENGTH", "90", "RATELIMIT_POLICIES_X_ON_BACKEND_ERROR", "deny",
                                "RATELIMIT_LOCAL_FALLBACK_HEARTBEAT_INTERVAL", "3s"))))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RateLimitProperties properties = context.getBean(RateLimitProperties.class);
                    assertThat(properties.getKeyPrefix()).isEqualTo("env:");
                    assertThat(properties.getMaxKeyLength()).isEqualTo(90);
                    assertThat(properties.getPolicies().get("x").getRate()).isEqualTo(5);
                });
    }

    @Test
    void aMisspeltEnvironmentVariableFailsStartup() {
        runner.withInitializer(context -> context.getEnvironment().getPropertySources()
                .addFirst(new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                        Map.of("RATELIMIT_POLICIES_X_RAT", "5"))))
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("ratelimit.policies.x.rat (did you mean ratelimit.policies.x.rate?)"));
    }

    @Test
    void warnModeLogsOnceAndStarts(CapturedOutput output) {
        runner.withPropertyValues("ratelimit.unknown-properties=warn", "ratelimit.polices.x.rate=5",
                "ratelimit.policies.x.rat=5").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(RateLimitProperties.class).getUnknownProperties().name()).isEqualTo("WARN");
                });
        String log = output.getOut() + output.getErr();
        assertThat(log).containsOnlyOnce("Ignoring properties that name no setting")
                .contains("ratelimit.polices.x.rate (did you mean ratelimit.policies.x.rate?)")
                .contains("ratelimit.policies.x.rat (did you mean ratelimit.policies.x.rate?)");
    }

    @Test
    void ignoreModeStartsSilently(CapturedOutput output) {
        runner.withPropertyValues("ratelimit.unknown-properties=ignore", "ratelimit.polices.x.rate=5")
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut() + output.getErr()).doesNotContain("ratelimit.polices");
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
    void theFailureReportNamesThePropertyWhereItIsSetAndTheValidName(CapturedOutput output) {
        SpringApplication application = new SpringApplication(App.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setDefaultProperties(Map.of("ratelimit.policies.checkout.rat", "5"));
        try {
            application.run();
        }
        catch (RuntimeException expected) {
            // the failure report is what the user reads
        }
        assertThat(output.getOut() + output.getErr()).contains("APPLICATION FAILED TO START")
                .contains("Properties under 'ratelimit.' name no setting")
                .contains("Property:     ratelimit.policies.checkout.rat")
                .contains("Did you mean: ratelimit.policies.checkout.rate")
                .contains("set ratelimit.unknown-properties=warn");
    }
}
