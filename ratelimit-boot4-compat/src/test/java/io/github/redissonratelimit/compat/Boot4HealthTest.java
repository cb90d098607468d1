package io.github.redissonratelimit.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.ClassUtils;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.health.RateLimitHealthAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.health.RateLimitHealthContributor;
import io.github.redissonratelimit.autoconfigure.health.RateLimitHealthContributorAutoConfiguration;
import io.github.redissonratelimit.compat.app.OrdersApplication;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * The {@code ratelimit} health indicator on Spring Boot 4, whose health API is {@code spring-boot-health}
 * ({@code org.springframework.boot.health.contributor}): the Boot 4 adapter of the same report as on Boot 3
 * (circuit, outage policy, latency, eviction policy per master), registered under the name {@code ratelimit};
 * the Boot 3 auto-configuration backs off. Degraded states are tested on Boot 3 ({@code RateLimitHealthIndicatorTest});
 * both adapters show one {@code RateLimitHealth} report.
 */
@ExtendWith(RealRedisExtension.class)
class Boot4HealthTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, AopAutoConfiguration.class,
                    RateLimitHealthAutoConfiguration.class, RateLimitHealthContributorAutoConfiguration.class,
                    HealthContributorRegistryAutoConfiguration.class))
            .withPropertyValues(OrdersApplication.TEST_BACKEND_TIMEOUT);

    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    private ApplicationContextRunner withRedis() {
        return runner.withBean(RedissonClient.class, redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown"))
                .withBean(Catalog.class);
    }

    public static class Catalog {

        @RateLimit(key = "#id", rate = 100, interval = 60)
        public String browse(String id) {
            return "browsed " + id;
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        assertThat(value).isInstanceOf(Map.class);
        return (Map<String, Object>) value;
    }

    @Test
    void theIndicatorReportsOnBoot4UnderTheNameRatelimit() {
        assertThat(ClassUtils.isPresent("org.springframework.boot.actuate.health.HealthIndicator", null))
                .as("Boot 3's health API is gone on Boot 4").isFalse();
        withRedis().run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(RateLimitHealthContributor.class);
            HealthIndicator indicator = context.getBean(RateLimitHealthAutoConfiguration.HEALTH_INDICATOR,
                    HealthIndicator.class);
            assertThat(context.getBean(HealthContributorRegistry.class).getContributor("ratelimit")).isSameAs(indicator);

            Catalog catalog = context.getBean(Catalog.class);
            for (int i = 0; i < 3; i++) {
                assertThat(catalog.browse("a" + i)).isEqualTo("browsed a" + i);
            }
            Health health = indicator.health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            Map<String, Object> details = health.getDetails();
            assertThat(details.keySet()).containsExactly("circuit", "onBackendError", "backendTimeout",
                    "backendFailures", "skippedCalls", "localFallback", "latency", "redis");
            // instances: this context, and any other of the test JVM still beating on the same Redis
            assertThat(map(details.get("localFallback"))).containsEntry("active", false).containsKey("instances")
                    .containsEntry("instancesFrom", "the heartbeat in Redis").containsEntry("activations", 0L);
            assertThat(details).containsEntry("circuit", "CLOSED").containsEntry("onBackendError", "local")
                    .containsEntry("backendFailures", 0L).containsEntry("skippedCalls", 0L);
            Map<String, Object> latency = map(details.get("latency"));
            assertThat(latency).containsEntry("decisions", 3);
            assertThat((BigDecimal) latency.get("p50Ms")).isPositive();
            assertThat(map(details.get("redis"))).containsOnlyKeys(redis.host() + ":" + redis.port());
            assertThat(map(map(details.get("redis")).get(redis.host() + ":" + redis.port())))
                    .containsKeys("maxmemoryPolicy");
            assertThat(RateLimitHealthContributor.DEGRADED.getCode()).isEqualTo("DEGRADED");
        });
    }

    @Test
    void followsTheEnabledPropertiesAndBacksOffWithoutTheHealthModule() {
        withRedis().withPropertyValues("management.health.ratelimit.enabled=false").run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitHealthAutoConfiguration.HEALTH_INDICATOR));
        withRedis().withPropertyValues("management.health.defaults.enabled=false").run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitHealthAutoConfiguration.HEALTH_INDICATOR));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                        RateLimitHealthAutoConfiguration.class, RateLimitHealthContributorAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
                .withBean(RedissonClient.class, redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown"))
                .run(context -> assertThat(context).hasNotFailed()
                        .doesNotHaveBean(RateLimitHealthAutoConfiguration.HEALTH_INDICATOR));
    }

    @Test
    void anIndicatorOfTheApplicationsOwnUnderItsNameReplacesIt() {
        HealthIndicator own = () -> Health.up().withDetail("own", true).build();
        withRedis().withBean(RateLimitHealthAutoConfiguration.HEALTH_INDICATOR, HealthIndicator.class, () -> own)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(RateLimitHealthContributor.class);
                    assertThat(context.getBean(HealthContributorRegistry.class).getContributor("ratelimit"))
                            .isSameAs(own);
                });
    }
}
