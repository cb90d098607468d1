package io.github.redissonratelimit.autoconfigure.diagnostics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
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

import io.github.redissonratelimit.autoconfigure.NoRedis;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;

/**
 * A {@code ratelimit.*} value that names none of its setting's choices fails startup listing them as the
 * documentation writes them ({@code token-bucket}), not as Java constants ({@code TOKEN_BUCKET}).
 */
@ExtendWith(OutputCaptureExtension.class)
class UnknownRateLimitValueFailureAnalyzerTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
            .withBean(RedissonClient.class, NoRedis::redissonClient);

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "ratelimit.routes.x.algorithm=token_buckett | default, sliding-window, token-bucket, fixed-window",
            "ratelimit.defaults.algorithm=leaky-bucket | default, sliding-window, token-bucket, fixed-window",
            "ratelimit.policies.p.algorithm=TOKEN-BUCKETS | default, sliding-window, token-bucket, fixed-window",
            "ratelimit.policies.p.tiers.gold.mode=per-user | per-client",
            "ratelimit.routes.x.on-backend-error=fail | default, allow, deny, local",
            "ratelimit.routes.x.calendar=daily | hour, day, week, month, year",
            "ratelimit.routes.x.key-scope=global | route, shared",
            "ratelimit.key-style=hash_tags | hash-tag, plain",
            "ratelimit.headers.style=ietf2 | ietf" })
    void aValueNamingNoChoiceListsTheChoicesAsTheDocsWriteThem(String property, String accepted) {
        String name = property.substring(0, property.indexOf('='));
        String value = property.substring(property.indexOf('=') + 1);
        runner.withPropertyValues("ratelimit.routes.x.paths=/x", "ratelimit.routes.x.rate=1",
                "ratelimit.policies.p.rate=1", property).run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = new UnknownRateLimitValueFailureAnalyzer()
                            .analyze(context.getStartupFailure());
                    assertThat(analysis).as("analyzed").isNotNull();
                    assertThat(analysis.getDescription()).contains("    Property: " + name + "\n",
                            "    Value:    \"" + value + "\"\n").contains(accepted);
                    assertThat(analysis.getAction()).startsWith("Set " + name + " to one of: ").contains(accepted);
                    assertThat(analysis.getDescription() + analysis.getAction()).doesNotContain("TOKEN_BUCKET",
                            "PER_CLIENT", "HASH_TAG");
                });
    }

    @Test
    void valuesInEveryRelaxedFormStillBind() {
        runner.withPropertyValues("ratelimit.routes.x.paths=/x", "ratelimit.routes.x.rate=1",
                "ratelimit.routes.x.algorithm=TOKEN_BUCKET", "ratelimit.defaults.algorithm=fixed_window",
                "ratelimit.routes.x.key-scope=SHARED", "ratelimit.key-style=hash-tag")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aValueOfAnotherKindIsLeftToSpringBoot() {
        runner.withPropertyValues("ratelimit.max-key-length=long").run(context -> {
            assertThat(context).hasFailed();
            assertThat(new UnknownRateLimitValueFailureAnalyzer().analyze(context.getStartupFailure())).isNull();
        });
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(RateLimitAutoConfiguration.class)
    static class App {
        @Bean
        RedissonClient redissonClient() {
            return NoRedis.redissonClient();
        }
    }

    /** Through SpringApplication, whose failure analyzers (META-INF/spring.factories) write the report. */
    @Test
    void theApplicationDoesNotStartAndListsTheChoices(CapturedOutput output) {
        SpringApplication application = new SpringApplication(App.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatThrownBy(() -> application.run("--ratelimit.defaults.algorithm=token_buckett",
                "--spring.main.banner-mode=off")).isNotNull();
        assertThat(output.getAll()).contains("The value of 'ratelimit.defaults.algorithm' is none of the values",
                "Set ratelimit.defaults.algorithm to one of: default, sliding-window, token-bucket, fixed-window, "
                        + "in-flight.")
                .doesNotContain("TOKEN_BUCKET");
    }
}
