package io.github.redissonratelimit.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
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

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.RateLimitKeyException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.compat.app.OrdersApplication;
import io.github.redissonratelimit.interceptor.RateLimitAdvisor;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.test.Calls;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * Limits declared the ways applications declare them (parameter name and index, bean, root object, composed
 * annotation, one and two instances), through the auto-configuration compiled against Boot 3.5, in Boot 4 contexts
 * on a real Redis. When the auto-configuration applies, its properties and startup validation are tested by the
 * auto-configuration module's own tests, which this module compiles and runs on Boot 4 (see its pom).
 */
@ExtendWith(RealRedisExtension.class)
class Boot4AutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, AopAutoConfiguration.class));

    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    /** A context with its own RedissonClient, i.e. one application instance. */
    private ApplicationContextRunner instance() {
        return runner.withPropertyValues(OrdersApplication.TEST_BACKEND_TIMEOUT)
                .withBean(RedissonClient.class, redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown"))
                .withBean("tenants", Tenants.class)
                .withBean(Orders.class);
    }

    private static int allowedOf(int calls, Callable<?> call) {
        return Calls.succeeding(calls, call, RateLimitExceededException.class);
    }

    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @RateLimit(key = "'export:' + #tenant", rate = 1, window = "1m")
    @interface ExportLimit {
    }

    public static class Tenants {
        public String current() {
            return "acme";
        }
    }

    public static class Orders {

        @RateLimit(key = "'by-name:' + #userId", rate = 2, interval = 60)
        public String byName(String userId) {
            return userId;
        }

        @RateLimit(key = "'by-index:' + #p0 + ':' + #a1", rate = 2, interval = 60)
        public String byIndex(String region, int shop) {
            return region + shop;
        }

        @RateLimit(key = "'by-bean:' + @tenants.current()", rate = 2, interval = 60)
        public String byBean() {
            return "ok";
        }

        @RateLimit(key = "#root.methodName + ':' + #userId", rate = 1, interval = 60)
        public String byRoot(String userId) {
            return userId;
        }

        @ExportLimit
        public String export(String tenant) {
            return tenant;
        }

        @RateLimit(key = "#userId", rate = 5, interval = 60)
        public String nullable(String userId) {
            return "ok";
        }

        @RateLimit(name = "shared-overall", rate = 3, interval = 60)
        public String overall() {
            return "ok";
        }

        @RateLimit(name = "shared-per-client", rate = 2, interval = 60, mode = RateLimitMode.PER_CLIENT)
        public String perClient() {
            return "ok";
        }
    }

    @Test
    void limitsByParameterNameIndexBeanAndRoot() {
        instance().run(context -> {
            assertThat(context).hasSingleBean(RateLimitInterceptor.class).hasSingleBean(RateLimitAdvisor.class);
            Orders orders = context.getBean(Orders.class);
            assertThat(AopUtils.isAopProxy(orders)).isTrue();

            assertThat(allowedOf(4, () -> orders.byName("ann"))).isEqualTo(2);
            assertThat(allowedOf(4, () -> orders.byName("ben"))).isEqualTo(2);
            assertThat(allowedOf(4, () -> orders.byIndex("eu", 1))).isEqualTo(2);
            assertThat(allowedOf(4, () -> orders.byIndex("eu", 2))).isEqualTo(2);
            assertThat(allowedOf(4, orders::byBean)).isEqualTo(2);
            assertThat(allowedOf(3, () -> orders.byRoot("ann"))).isEqualTo(1);

            try (RespClient cli = redis.cli()) {
                assertThat(cli.list("KEYS", "rate_limit:{*}")).containsExactlyInAnyOrder("rate_limit:{by-name:ann}",
                        "rate_limit:{by-name:ben}", "rate_limit:{by-index:eu:1}", "rate_limit:{by-index:eu:2}",
                        "rate_limit:{by-bean:acme}", "rate_limit:{byRoot:ann}");
            }
        });
    }

    @Test
    void composedAnnotationCarriesTheLimit() {
        instance().run(context -> {
            Orders orders = context.getBean(Orders.class);
            orders.export("acme");
            assertThatThrownBy(() -> orders.export("acme")).isInstanceOfSatisfying(RateLimitExceededException.class,
                    ex -> {
                        assertThat(ex.getLimiterName()).isEqualTo("rate_limit:{export:acme}");
                        assertThat(ex.getRetryAfter()).isBetween(Duration.ofSeconds(58), Duration.ofSeconds(60));
                    });
            assertThat(orders.export("globex")).isEqualTo("globex");
        });
    }

    @Test
    void nullKeyIsRefusedNamingTheMethod() {
        instance().run(context -> assertThatThrownBy(() -> context.getBean(Orders.class).nullable(null))
                .isInstanceOf(RateLimitKeyException.class)
                .hasMessage("@RateLimit key expression \"#userId\" on " + Orders.class.getName()
                        + ".nullable(String) evaluated to null"));
    }

    @Test
    void overallIsOneBucketAcrossTwoInstances() {
        instance().run(first -> instance().run(second -> {
            Orders a = first.getBean(Orders.class);
            Orders b = second.getBean(Orders.class);
            assertThat(first.getBean(RedissonClient.class).getId()).isNotEqualTo(second.getBean(RedissonClient.class).getId());
            assertThat(allowedOf(2, a::overall)).isEqualTo(2);
            assertThat(allowedOf(3, b::overall)).isEqualTo(1);
            assertThat(allowedOf(1, a::overall)).isZero();
        }));
    }

    @Test
    void perClientIsOneBucketPerInstance() {
        instance().run(first -> instance().run(second -> {
            Orders a = first.getBean(Orders.class);
            Orders b = second.getBean(Orders.class);
            assertThat(allowedOf(3, a::perClient)).isEqualTo(2);
            assertThat(allowedOf(3, b::perClient)).isEqualTo(2);
        }));
    }
}
