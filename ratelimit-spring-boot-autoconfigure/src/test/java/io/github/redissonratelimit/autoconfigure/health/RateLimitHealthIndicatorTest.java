package io.github.redissonratelimit.autoconfigure.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.ResilienceDecorator;
import io.github.redissonratelimit.outcome.CircuitState;
import io.github.redissonratelimit.test.redis.RedisServerProcess;

/**
 * What the {@code ratelimit} health indicator reports, on a redis-server this test configures and stops: UP with
 * the circuit, the outage policy, each master's eviction policy and the recent decisions' latency while Redis
 * answers; DEGRADED (not DOWN: the outage policy keeps serving) while the circuit is open; UP again once Redis
 * is back.
 */
class RateLimitHealthIndicatorTest {

    private static RedisServerProcess server;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                    RateLimitHealthAutoConfiguration.class, AopAutoConfiguration.class))
            .withBean(RedissonClient.class, () -> server.endpoint().newRedissonClient(),
                    definition -> definition.setDestroyMethodName("shutdown"))
            .withBean(Catalog.class);

    @BeforeAll
    static void startRedis() {
        server = RedisServerProcess.startOnFreePort();
    }

    @AfterAll
    static void stopRedis() {
        server.close();
    }

    @BeforeEach
    void redisIsUp() {
        server.start();
        server.endpoint().flushAll();
        server.endpoint().command("CONFIG", "SET", "maxmemory-policy", "noeviction");
    }

    public static class Catalog {

        @RateLimit(key = "#id", rate = 100, interval = 60)
        public String browse(String id) {
            return "browsed " + id;
        }
    }

    private static Health health(org.springframework.context.ApplicationContext context) {
        return context.getBean(RateLimitHealthAutoConfiguration.HEALTH_INDICATOR, HealthIndicator.class).health();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        assertThat(value).isInstanceOf(Map.class);
        return (Map<String, Object>) value;
    }

    @Test
    void upWithTheCircuitThePolicyTheEvictionPolicyAndTheRecentLatency() {
        runner.run(context -> {
            Catalog catalog = context.getBean(Catalog.class);
            for (int i = 0; i < 3; i++) {
                assertThat(catalog.browse("a" + i)).isEqualTo("browsed a" + i);
            }
            Health health = health(context);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            Map<String, Object> details = health.getDetails();
            assertThat(details).containsEntry("circuit", "CLOSED").containsEntry("onBackendError", "local")
                    .containsEntry("backendTimeout", "100ms").containsEntry("backendFailures", 0L)
                    .containsEntry("skippedCalls", 0L);
            assertThat(details.keySet()).containsExactly("circuit", "onBackendError", "backendTimeout",
                    "backendFailures", "skippedCalls", "localFallback", "latency", "redis");
            // instances: this context, and any other of the test JVM still beating on the same Redis
            assertThat(map(details.get("localFallback"))).containsEntry("active", false).containsKey("instances")
                    .containsEntry("instancesFrom", "the heartbeat in Redis").containsEntry("activations", 0L);

            Map<String, Object> latency = map(details.get("latency"));
            assertThat(latency).containsEntry("decisions", 3)
                    .containsEntry("window", "the last 1024 decisions within 300s");
            BigDecimal p50 = (BigDecimal) latency.get("p50Ms");
            BigDecimal p99 = (BigDecimal) latency.get("p99Ms");
            BigDecimal max = (BigDecimal) latency.get("maxMs");
            assertThat(p50).isPositive().isLessThanOrEqualTo(p99);
            assertThat(p99).isLessThanOrEqualTo(max);
            assertThat(max).isLessThan(BigDecimal.valueOf(5_000));

            assertThat(map(details.get("redis"))).containsOnlyKeys("127.0.0.1:" + server.port());
            assertThat(map(map(details.get("redis")).get("127.0.0.1:" + server.port())))
                    .containsExactly(Map.entry("maxmemoryPolicy", "noeviction"), Map.entry("evictsLimiterKeys", false));
        });
    }

    @Test
    void reportsAnEvictingPolicyAndTheOutagePolicyInForce() {
        server.endpoint().command("CONFIG", "SET", "maxmemory-policy", "volatile-lfu");
        runner.withPropertyValues("ratelimit.on-backend-error=deny").run(context -> {
            Health health = health(context);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("onBackendError", "deny");
            assertThat(map(health.getDetails().get("latency"))).containsEntry("decisions", 0).doesNotContainKey("p50Ms");
            assertThat(map(map(health.getDetails().get("redis")).get("127.0.0.1:" + server.port())))
                    .containsEntry("maxmemoryPolicy", "volatile-lfu").containsEntry("evictsLimiterKeys", true);
        });
    }

    @Test
    void degradedNotDownWhileTheCircuitIsOpenAndUpAgainWhenRedisAnswers() {
        runner.withPropertyValues("ratelimit.backend-timeout=50ms", "ratelimit.circuit-breaker.failure-threshold=2",
                "ratelimit.circuit-breaker.open-duration=1s").run(context -> {
                    Catalog catalog = context.getBean(Catalog.class);
                    assertThat(catalog.browse("b")).isEqualTo("browsed b");

                    server.stop();
                    for (int i = 0; i < 2; i++) {
                        // the outage policy (allow) keeps serving
                        assertThat(catalog.browse("b")).isEqualTo("browsed b");
                    }
                    // no answer within the liveness time: the two count as failures
                    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10)).until(() -> context
                            .getBean(ResilienceDecorator.class).circuits().getState() == CircuitState.OPEN);
                    assertThat(catalog.browse("b")).isEqualTo("browsed b"); // skipped

                    Health degraded = health(context);
                    assertThat(degraded.getStatus()).isEqualTo(RateLimitHealthIndicator.DEGRADED)
                            .isNotEqualTo(Status.DOWN);
                    assertThat(degraded.getDetails()).containsEntry("circuit", "OPEN")
                            .containsEntry("backendFailures", 2L).containsEntry("skippedCalls", 1L);
                    assertThat(map(degraded.getDetails().get("redis"))).isNotEmpty().allSatisfy((master, policy) ->
                            assertThat(map(policy)).containsEntry("maxmemoryPolicy", "unknown").containsKey("problem"));

                    server.start();
                    await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
                        assertThat(catalog.browse("b")).isEqualTo("browsed b");
                        assertThat(health(context).getStatus()).isEqualTo(Status.UP);
                    });
                    assertThat(health(context).getDetails()).containsEntry("circuit", "CLOSED");
                });
    }
}
