package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.redissonratelimit.InvalidRateLimitException;
import io.github.redissonratelimit.annotation.RateLimit;

/**
 * Every broken declaration or property stops the application at startup with a message that says what to fix; no
 * Redis is needed to find out (the {@link RedissonClient} is {@link NoRedis}).
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupValidationTest {

    public static class Named {
        @RateLimit(name = "order-submit", key = "#userId")
        public void submit(String userId) {
        }
    }

    public static class UnknownParameter {
        @RateLimit(key = "'user:' + #usr", rate = 5)
        public void call(String user) {
        }
    }

    public static class ParametersWithoutHash {
        @RateLimit(key = "first + ':' + second", rate = 5)
        public void call(String first, String second) {
        }
    }

    public static class ParameterWithoutHashInCondition {
        @RateLimit(rate = 5, condition = "amount > 100")
        public void call(long amount) {
        }
    }

    public static class PermitsAboveRate {
        @RateLimit(rate = 2, permits = 3)
        public void call() {
        }
    }

    public static class NoRate {
        @RateLimit(interval = 60)
        public void call() {
        }
    }

    public static class BadKey {
        @RateLimit(key = "order:' + #id", rate = 1)
        public void call(String id) {
        }
    }

    public static class BadWindow {
        @RateLimit(rate = 1, window = "1 minute")
        public void call() {
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, AopAutoConfiguration.class))
            .withBean(RedissonClient.class, NoRedis::redissonClient);

    @Test
    void aRateSetNowhereFailsNamingThePolicyProperty() {
        runner.withBean(Named.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("Named.submit(String): rate is not set")
                .hasStackTraceContaining("or set ratelimit.policies.order-submit.rate"));
    }

    @Test
    void invalidPolicyValuesFailNamingTheProperty() {
        runner.withBean(Named.class).withPropertyValues("ratelimit.policies.order-submit.rate=0",
                "ratelimit.defaults.interval=0s").run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("ratelimit.policies.order-submit.rate must be greater than 0 but was 0")
                        .hasStackTraceContaining("ratelimit.defaults.interval must be at least 1ms"));
        runner.withBean(Named.class).withPropertyValues("ratelimit.policies.order-submit.rate=2",
                "ratelimit.policies.order-submit.permits=3").run(context -> assertThat(context).hasFailed()
                        .getFailure().hasStackTraceContaining(
                                "ratelimit.policies.order-submit.permits (3) must not exceed ratelimit.policies.order-submit.rate (2)"));
        runner.withPropertyValues("ratelimit.on-config-change=sometimes").run(context -> assertThat(context)
                .hasFailed().getFailure().hasStackTraceContaining("ratelimit.on-config-change"));
    }

    @Test
    void aRequiredPolicyMustExist() {
        runner.withBean(Named.class).withPropertyValues("ratelimit.require-policies=true",
                "ratelimit.defaults.rate=5").run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("name \"order-submit\" has no policy configured, and policies are required"));
        runner.withBean(Named.class).withPropertyValues("ratelimit.require-policies=true",
                "ratelimit.policies.order-submit.rate=5").run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aKeyReferringToAMissingParameterFails() {
        runner.withBean(UnknownParameter.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("key \"'user:' + #usr\" refers to #usr, which the method does not have")
                .hasStackTraceContaining("use one of its parameters: #user, #p0"));
    }

    @Test
    void aParameterWrittenWithoutHashFailsNamingTheFix() {
        runner.withBean(ParametersWithoutHash.class).run(context -> assertThat(context).hasFailed()
                .getFailure().hasStackTraceContaining("Invalid @RateLimit on " + ParametersWithoutHash.class.getName()
                        + ".call(String, String): key \"first + ':' + second\"")
                .hasStackTraceContaining("Fix: write #first, #second"));
        runner.withBean(ParameterWithoutHashInCondition.class).run(context -> assertThat(context).hasFailed()
                .getFailure().hasStackTraceContaining(ParameterWithoutHashInCondition.class.getName()
                        + ".call(long): condition \"amount > 100\"")
                .hasStackTraceContaining("Fix: write #amount"));
    }

    @Test
    void defaultIsNotAModeTheDefaultsCanHave() {
        runner.withPropertyValues("ratelimit.defaults.mode=default").run(context -> assertThat(context)
                .hasFailed().getFailure().hasStackTraceContaining("ratelimit.defaults.mode must be 'overall' or "
                        + "'per-client'"));
        runner.withPropertyValues("ratelimit.defaults.mode=per-client").run(context -> assertThat(context)
                .hasNotFailed());
    }

    @Test
    void lazyBeansAreValidatedAtStartupToo() {
        runner.withBean(PermitsAboveRate.class, PermitsAboveRate::new, bd -> bd.setLazyInit(true))
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("PermitsAboveRate.call(): permits (3) exceeds rate (2)"));
    }

    @Test
    void invalidDeclarationsFailStartupNamingMethodAttributeAndFix() {
        assertStartupFails(NoRate.class, "Invalid @RateLimit on " + NoRate.class.getName()
                + ".call(): rate is not set. Fix: declare how many calls a window allows");
        assertStartupFails(PermitsAboveRate.class, "Invalid @RateLimit on " + PermitsAboveRate.class.getName()
                + ".call(): permits (3) exceeds rate (2), so no call could ever be allowed. Fix: lower permits or raise rate");
        assertStartupFails(BadKey.class, "Invalid @RateLimit on " + BadKey.class.getName()
                + ".call(String): key \"order:' + #id\" is not valid SpEL");
        assertStartupFails(BadWindow.class, "Invalid @RateLimit on " + BadWindow.class.getName()
                + ".call(): window '1 minute' has an unknown unit; use ms, s, m, h or d");
    }

    private void assertStartupFails(Class<?> bean, String message) {
        runner.withBean(bean).run(context -> {
            assertThat(context).hasFailed();
            assertThat(invalidRateLimitIn(context.getStartupFailure())).hasMessageStartingWith(message);
        });
    }

    private static InvalidRateLimitException invalidRateLimitIn(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof InvalidRateLimitException invalid) {
                return invalid;
            }
        }
        throw new AssertionError("No InvalidRateLimitException in", failure);
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ RateLimitAutoConfiguration.class, AopAutoConfiguration.class })
    static class App {
        @Bean
        RedissonClient redissonClient() {
            return NoRedis.redissonClient();
        }
    }

    @Test
    void theFailureAnalyzerExplainsTheFailure(CapturedOutput output) {
        assertFailureReport(output, PermitsAboveRate.class, "call()", "permits",
                "permits (3) exceeds rate (2), so no call could ever be allowed", "lower permits or raise rate.");
    }

    @Test
    void theFailureAnalyzerExplainsAParameterWrittenWithoutHash(CapturedOutput output) {
        assertFailureReport(output, ParametersWithoutHash.class, "call(String, String)", "key",
                "key \"first + ':' + second\" reads first, second without '#'", "write #first, #second.");
    }

    /** Starts an application with {@code invalidBean}, and checks the failure report is what the user reads. */
    private static void assertFailureReport(CapturedOutput output, Class<?> invalidBean, String method,
            String attribute, String problem, String fix) {
        SpringApplication application = new SpringApplication(App.class, invalidBean);
        application.setWebApplicationType(WebApplicationType.NONE);
        try {
            application.run();
        }
        catch (RuntimeException expected) {
            // the failure report is what the user reads
        }
        assertThat(output).contains("APPLICATION FAILED TO START", "A @RateLimit declaration is invalid.",
                "Method:    " + invalidBean.getName() + "." + method, "Attribute: " + attribute,
                "Problem:   " + problem, "Fix the declaration: " + fix);
    }
}
