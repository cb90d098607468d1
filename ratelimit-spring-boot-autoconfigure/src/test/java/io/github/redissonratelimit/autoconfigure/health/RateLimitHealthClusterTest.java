package io.github.redissonratelimit.autoconfigure.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.ResilienceDecorator;
import io.github.redissonratelimit.test.redis.RedisClusterProcess;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * The {@code ratelimit} health details during a partial outage of a real 3-master Redis Cluster (no replicas,
 * {@code cluster-require-full-coverage no}): one master SIGKILLed, its circuit open; every master keeps its own entry,
 * the healthy ones their eviction policy and closed circuit, the dead one {@code unknown} with the problem; no entry
 * that names no master.
 */
class RateLimitHealthClusterTest {

    private static RedisClusterProcess cluster;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                    RateLimitHealthAutoConfiguration.class, AopAutoConfiguration.class))
            .withBean(RedissonClient.class, () -> cluster.newRedissonClient(),
                    definition -> definition.setDestroyMethodName("shutdown"))
            .withBean(Catalog.class)
            .withPropertyValues("ratelimit.circuit-breaker.failure-threshold=2",
                    "ratelimit.circuit-breaker.open-duration=1m", "ratelimit.circuit-breaker.liveness-timeout=300ms");

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterProcess.start(3, 0, false);
        cluster.ports().forEach(port -> {
            try (RespClient cli = new RespClient("127.0.0.1", port)) {
                cli.command("CONFIG", "SET", "maxmemory-policy", "noeviction");
            }
        });
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    public static class Catalog {

        @RateLimit(key = "#id", rate = 100, interval = 60, onBackendError = BackendErrorPolicy.ALLOW)
        public String browse(String id) {
            return "browsed " + id;
        }
    }

    @Test
    void everyMasterKeepsItsEntryWithItsCircuitAndEvictionPolicyWhileOneIsDown() {
        runner.run(context -> {
            Catalog catalog = context.getBean(Catalog.class);
            for (int i = 0; i < 60; i++) { // keys over every master's slots
                assertThat(catalog.browse("user-" + i)).isEqualTo("browsed user-" + i);
            }
            Map<String, Object> healthy = redis(health(context));
            assertThat(healthy).hasSize(3).allSatisfy((master, details) -> assertThat(map(details))
                    .containsEntry("maxmemoryPolicy", "noeviction").containsEntry("circuit", "CLOSED"));

            String dead = "127.0.0.1:" + cluster.killMaster(0);
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
                for (int i = 0; i < 60; i++) {
                    catalog.browse("user-" + i); // allowed by the outage policy on the dead master
                }
                return context.getBean(ResilienceDecorator.class).circuits().getMasterStates()
                        .containsValue(io.github.redissonratelimit.outcome.CircuitState.OPEN);
            });

            Health health = health(context);
            assertThat(health.getStatus()).isEqualTo(RateLimitHealthIndicator.DEGRADED);
            assertThat(health.getDetails()).containsEntry("circuit", "OPEN");
            Map<String, Object> masters = redis(health);
            assertThat(masters.keySet()).as("every master, by address").containsExactlyInAnyOrderElementsOf(
                    healthy.keySet()).doesNotContain("unknown");
            assertThat(map(masters.get(dead))).containsEntry("circuit", "OPEN")
                    .containsEntry("maxmemoryPolicy", "unknown").containsKey("problem");
            masters.forEach((master, details) -> {
                if (!master.equals(dead)) {
                    assertThat(map(details)).as(master).containsEntry("maxmemoryPolicy", "noeviction")
                            .containsEntry("evictsLimiterKeys", false).containsEntry("circuit", "CLOSED");
                }
            });
        });
    }

    private static Health health(ApplicationContext context) {
        return context.getBean(RateLimitHealthAutoConfiguration.HEALTH_INDICATOR, HealthIndicator.class).health();
    }

    private static Map<String, Object> redis(Health health) {
        return map(health.getDetails().get("redis"));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        assertThat(value).isInstanceOf(Map.class);
        return (Map<String, Object>) value;
    }
}
