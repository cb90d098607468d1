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
import org.springframework.context.annotation.Lazy;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.TestRedis;

/** Every broken declaration or property stops the application at startup with a message that says what to fix. */
@ExtendWith({ RealRedisExtension.class, OutputCaptureExtension.class })
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

    private ApplicationContextRunner runner(RedisEndpoint redis) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, AopAutoConfiguration.class))
                .withBean(RedissonClient.class, redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown"));
    }

    @Test
    void aRateSetNowhereFailsNamingThePolicyProperty(RedisEndpoint redis) {
        runner(redis).withBean(Named.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("Named.submit(String): rate is not set")
                .hasStackTraceContaining("or set ratelimit.policies.order-submit.rate"));
    }

    @Test
    void invalidPolicyValuesFailNamingTheProperty(RedisEndpoint redis) {
        runner(redis).withBean(Named.class).withPropertyValues("ratelimit.policies.order-submit.rate=0",
                "ratelimit.defaults.interval=0s").run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("ratelimit.policies.order-submit.rate must be greater than 0 but was 0")
                        .hasStackTraceContaining("ratelimit.defaults.interval must be at least 1ms"));
        runner(redis).withBean(Named.class).withPropertyValues("ratelimit.policies.order-submit.rate=2",
                "ratelimit.policies.order-submit.permits=3").run(context -> assertThat(context).hasFailed()
                        .getFailure().hasStackTraceContaining(
                                "ratelimit.policies.order-submit.permits (3) must not exceed ratelimit.policies.order-submit.rate (2)"));
        runner(redis).withPropertyValues("ratelimit.on-config-change=sometimes").run(context -> assertThat(context)
                .hasFailed().getFailure().hasStackTraceContaining("ratelimit.on-config-change"));
    }

    @Test
    void aRequiredPolicyMustExist(RedisEndpoint redis) {
        runner(redis).withBean(Named.class).withPropertyValues("ratelimit.require-policies=true",
                "ratelimit.defaults.rate=5").run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("name \"order-submit\" has no policy configured, and policies are required"));
        runner(redis).withBean(Named.class).withPropertyValues("ratelimit.require-policies=true",
                "ratelimit.policies.order-submit.rate=5").run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aKeyReferringToAMissingParameterFails(RedisEndpoint redis) {
        runner(redis).withBean(UnknownParameter.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("key \"'user:' + #usr\" refers to #usr, which the method does not have")
                .hasStackTraceContaining("use one of its parameters: #user, #p0..#p0"));
    }

    @Test
    void aParameterWrittenWithoutHashFailsNamingTheFix(RedisEndpoint redis) {
        runner(redis).withBean(ParametersWithoutHash.class).run(context -> assertThat(context).hasFailed()
                .getFailure().hasStackTraceContaining("Invalid @RateLimit on " + ParametersWithoutHash.class.getName()
                        + ".call(String, String): key \"first + ':' + second\"")
                .hasStackTraceContaining("Fix: write #first, #second"));
        runner(redis).withBean(ParameterWithoutHashInCondition.class).run(context -> assertThat(context).hasFailed()
                .getFailure().hasStackTraceContaining(ParameterWithoutHashInCondition.class.getName()
                        + ".call(long): condition \"amount > 100\"")
                .hasStackTraceContaining("Fix: write #amount"));
    }

    @Test
    void defaultIsNotAModeTheDefaultsCanHave(RedisEndpoint redis) {
        runner(redis).withPropertyValues("ratelimit.defaults.mode=default").run(context -> assertThat(context)
                .hasFailed().getFailure().hasStackTraceContaining("ratelimit.defaults.mode must be 'overall' or "
                        + "'per-client'"));
        runner(redis).withPropertyValues("ratelimit.defaults.mode=per-client").run(context -> assertThat(context)
                .hasNotFailed());
    }

    @Test
    void lazyBeansAreValidatedAtStartupToo(RedisEndpoint redis) {
        runner(redis).withBean(PermitsAboveRate.class, PermitsAboveRate::new, bd -> bd.setLazyInit(true))
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("PermitsAboveRate.call(): permits (3) exceeds rate (2)"));
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ RateLimitAutoConfiguration.class, AopAutoConfiguration.class })
    static class AppOnTestRedis {
        @Bean(destroyMethod = "shutdown")
        RedissonClient redissonClient() {
            return TestRedis.endpoint().newRedissonClient();
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
        SpringApplication application = new SpringApplication(AppOnTestRedis.class, invalidBean);
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
