package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.Callable;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.github.redissonratelimit.test.Calls;
import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.operation.RateLimitOperationSource;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

/** Limits that live in properties, and limits that change between two deployments on the same Redis. */
@ExtendWith({ RealRedisExtension.class, OutputCaptureExtension.class })
class RateLimitPoliciesTest {

    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    public static class Orders {
        @RateLimit(name = "order-submit", key = "'order:' + #userId", rate = 5, interval = 60)
        public String submit(String userId) {
            return "ok";
        }

        @RateLimit(name = "report", rate = 1)
        public String report() {
            return "report";
        }

        @RateLimit(rate = 3)
        public String plain() {
            return "plain";
        }
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, AopAutoConfiguration.class))
                .withPropertyValues(RateLimitAutoConfigurationRedisTest.TEST_BACKEND_TIMEOUT)
                .withBean(RedissonClient.class, redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown"))
                .withBean(Orders.class);
    }

    private static long allowed(int calls, Callable<?> call) {
        return Calls.succeeding(calls, call, RateLimitExceededException.class);
    }

    private static RateLimitOperation operation(org.springframework.context.ApplicationContext context, String method)
            throws NoSuchMethodException {
        return context.getBean(RateLimitOperationSource.class)
                .getOperations(Orders.class.getMethod(method, method.equals("submit")
                        ? new Class<?>[] { String.class } : new Class<?>[0]), Orders.class).get(0);
    }

    @Test
    void aPolicyInPropertiesOverridesTheAnnotation() {
        runner().withPropertyValues("ratelimit.policies.order-submit.rate=2",
                "ratelimit.policies.order-submit.interval=1m",
                "ratelimit.policies.order-submit.mode=per-client").run(context -> {
                    RateLimitOperation operation = operation(context, "submit");
                    assertThat(operation.spec().rate()).isEqualTo(2);
                    assertThat(operation.spec().interval()).isEqualTo(Duration.ofMinutes(1));
                    assertThat(operation.spec().mode()).isEqualTo(RateLimitMode.PER_CLIENT);
                    assertThat(operation.source()).isEqualTo("policy");

                    Orders orders = context.getBean(Orders.class);
                    assertThat(allowed(4, () -> orders.submit("u1"))).isEqualTo(2);
                });
    }

    @Test
    void defaultsFillUnsetValues() {
        runner().withPropertyValues("ratelimit.defaults.interval=90s", "ratelimit.defaults.permits=1").run(context -> {
            assertThat(operation(context, "plain").spec().interval()).isEqualTo(Duration.ofSeconds(90));
            assertThat(operation(context, "submit").spec().interval()).isEqualTo(Duration.ofSeconds(60));
        });
    }

    @Test
    void aDisabledPolicySwitchesTheLimitOff() {
        runner().withPropertyValues("ratelimit.policies.report.enabled=false").run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThat(allowed(5, orders::report)).isEqualTo(5);
            assertThat(allowed(5, orders::plain)).isEqualTo(3);
        });
    }

    @Test
    void keysGetTheConfiguredTtl() {
        runner().withPropertyValues("ratelimit.key-ttl=10m").run(context -> {
            context.getBean(Orders.class).submit("ttl");
            try (RespClient cli = redis.cli()) {
                assertThat(cli.number("PTTL", "rate_limit:{order:ttl}:permits")).isBetween(590_000L, 600_000L);
            }
        });
    }

    @Test
    void theRateChangedBetweenDeploymentsIsAppliedByDefault() {
        runner().run(context -> assertThat(allowed(3, () -> context.getBean(Orders.class).submit("d"))).isEqualTo(3));

        runner().withPropertyValues("ratelimit.policies.order-submit.rate=10").run(context -> {
            assertThat(allowed(10, () -> context.getBean(Orders.class).submit("d"))).isEqualTo(7);
            try (RespClient cli = redis.cli()) {
                assertThat(cli.string("HGET", "rate_limit:{order:d}", "rate")).isEqualTo("10");
            }
        });
    }

    @Test
    void resetStartsTheChangedLimitFull() {
        runner().run(context -> assertThat(allowed(3, () -> context.getBean(Orders.class).submit("r"))).isEqualTo(3));

        runner().withPropertyValues("ratelimit.policies.order-submit.rate=10", "ratelimit.on-config-change=reset")
                .run(context -> assertThat(allowed(12, () -> context.getBean(Orders.class).submit("r"))).isEqualTo(10));
    }

    @Test
    void keepIgnoresTheChangeAndWarns(CapturedOutput output) {
        runner().run(context -> assertThat(allowed(3, () -> context.getBean(Orders.class).submit("k"))).isEqualTo(3));

        runner().withPropertyValues("ratelimit.policies.order-submit.rate=10", "ratelimit.on-config-change=keep")
                .run(context -> assertThat(allowed(12, () -> context.getBean(Orders.class).submit("k"))).isEqualTo(2));
        assertThat(output).contains("Rate limiter 'rate_limit:{order:k}' keeps its stored config [rate=5",
                "although [rate=10");
    }

    @Test
    void warnsAboutPoliciesNoAnnotationUses(CapturedOutput output) {
        runner().withPropertyValues("ratelimit.policies.order-sumbit.rate=3").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(output).contains("ratelimit.policies.order-sumbit.* is configured, but no "
                    + "@RateLimit(name = \"order-sumbit\") exists in the application context");
        });
    }

    @Test
    void theConfiguredLimitIsWhatTheAopProxyEnforces() {
        runner().withPropertyValues("ratelimit.policies.report.rate=2").run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThat(AopUtils.isAopProxy(orders)).isTrue();
            assertThat(allowed(4, orders::report)).isEqualTo(2);
        });
    }
}
