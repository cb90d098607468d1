package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.metrics.RateLimitBackendMetrics;
import io.github.redissonratelimit.autoconfigure.metrics.RateLimitMetricsAutoConfiguration;
import io.github.redissonratelimit.limiter.LocalRejectionCache;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.outcome.CircuitState;
import io.github.redissonratelimit.resilience.ResilientRateLimitBackend;
import io.github.redissonratelimit.test.redis.RedisServerProcess;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * {@code ratelimit.on-backend-error}, {@code backend-timeout} and {@code circuit-breaker.*}, on a Redis this test stops.
 * Their defaults and bad values are in {@link RateLimitAutoConfigurationTest}, which starts no Redis.
 */
class RateLimitOutagePolicyAutoConfigurationTest {

    private static RedisServerProcess server;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, RateLimitMetricsAutoConfiguration.class,
                    AopAutoConfiguration.class))
            .withBean(RedissonClient.class, RateLimitOutagePolicyAutoConfigurationTest::redisson,
                    definition -> definition.setDestroyMethodName("shutdown"))
            .withBean(Catalog.class);

    @BeforeAll
    static void startRedis() {
        server = RedisServerProcess.startOnFreePort();
    }

    @AfterAll
    static void stopRedis() {
        server.stop();
    }

    @BeforeEach
    void redisIsUp() {
        server.start();
        try (RespClient cli = new RespClient("127.0.0.1", server.port())) {
            cli.command("FLUSHALL");
        }
    }

    private static RedissonClient redisson() {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://127.0.0.1:" + server.port()).setConnectionMinimumIdleSize(1)
                .setConnectionPoolSize(2);
        return Redisson.create(config);
    }

    public static class Catalog {

        @RateLimit(key = "#id", rate = 10, interval = 60)
        public String browse(String id) {
            return "browsed " + id;
        }

        @RateLimit(key = "#id", rate = 10, interval = 60, onBackendError = BackendErrorPolicy.ALLOW)
        public String browseAlways(String id) {
            return "browsed " + id;
        }

        @RateLimit(key = "#id", rate = 10, interval = 60, onBackendError = BackendErrorPolicy.DENY)
        public String buy(String id) {
            return "bought " + id;
        }

        @RateLimit(name = "checkout", key = "#id", rate = 10, interval = 60)
        public String checkout(String id) {
            return "checked out " + id;
        }
    }

    @Test
    void eachLimitFollowsTheGlobalPolicyUnlessItsAnnotationSaysOtherwise() {
        runner.withPropertyValues("ratelimit.on-backend-error=deny", "ratelimit.backend-timeout=50ms",
                "ratelimit.circuit-breaker.failure-threshold=2", "ratelimit.circuit-breaker.open-duration=30s")
                .run(context -> {
                    Catalog catalog = context.getBean(Catalog.class);
                    assertThat(catalog.browse("x")).isEqualTo("browsed x");
                    ResilientRateLimitBackend backend = resilient(context.getBean(RateLimitBackend.class));
                    assertThat(backend.getTimeout()).isEqualTo(Duration.ofMillis(50));

                    server.stop();

                    assertThatThrownBy(() -> catalog.browse("x")).isInstanceOf(RateLimitBackendUnavailableException.class);
                    assertThatThrownBy(() -> catalog.buy("x")).isInstanceOf(RateLimitBackendUnavailableException.class);
                    // no answer within the liveness time: the two count as failures
                    await().atMost(Duration.ofSeconds(10)).until(() -> backend.getState() == CircuitState.OPEN);
                    assertThat(catalog.browseAlways("x")).isEqualTo("browsed x");
                    assertThatThrownBy(() -> catalog.browse("y"))
                            .isInstanceOfSatisfying(RateLimitBackendUnavailableException.class, ex -> {
                                assertThat(ex.getReason()).isEqualTo(RateLimitBackendUnavailableException.Reason.CIRCUIT_OPEN);
                                assertThat(ex.getRetryAfterSeconds()).isBetween(29L, 30L);
                            });
                });
    }

    @Test
    void aNamedPolicyInPropertiesOverridesThePolicyForItsLimit() {
        runner.withPropertyValues("ratelimit.policies.checkout.on-backend-error=deny", "ratelimit.backend-timeout=50ms")
                .run(context -> {
                    Catalog catalog = context.getBean(Catalog.class);
                    assertThat(catalog.checkout("x")).isEqualTo("checked out x");

                    server.stop();

                    assertThatThrownBy(() -> catalog.checkout("x")).isInstanceOf(RateLimitBackendUnavailableException.class);
                    assertThat(catalog.browse("x")).isEqualTo("browsed x");
                });
        server.start();
        runner.withPropertyValues("ratelimit.policies.checkout.on-backend-error=allow", "ratelimit.on-backend-error=deny",
                "ratelimit.backend-timeout=50ms").run(context -> {
                    server.stop();
                    assertThat(context.getBean(Catalog.class).checkout("y")).isEqualTo("checked out y");
                    assertThatThrownBy(() -> context.getBean(Catalog.class).browse("y"))
                            .isInstanceOf(RateLimitBackendUnavailableException.class);
                });
    }

    private static ResilientRateLimitBackend resilient(RateLimitBackend backend) {
        return TestBackends.layer(backend, ResilientRateLimitBackend.class);
    }

    @Test
    void countsFailuresSkipsAndTheOpenCircuitInMicrometer() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        runner.withBean(MeterRegistry.class, () -> registry)
                .withPropertyValues("ratelimit.circuit-breaker.failure-threshold=2", "ratelimit.backend-timeout=50ms",
                        "ratelimit.circuit-breaker.open-duration=30s")
                .run(context -> {
                    assertThat(context).hasSingleBean(RateLimitBackendMetrics.class);
                    Catalog catalog = context.getBean(Catalog.class);
                    catalog.browse("m");
                    server.stop();
                    for (int i = 0; i < 2; i++) {
                        assertThat(catalog.browse("m")).isEqualTo("browsed m");
                    }
                    // no answer within the liveness time: the two count as failures
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> registry.get("ratelimit.backend.circuit.open").gauge().value() == 1);
                    for (int i = 0; i < 3; i++) {
                        assertThat(catalog.browse("m")).isEqualTo("browsed m");
                    }
                    assertThat(registry.get("ratelimit.backend.failures").counter().count()).isEqualTo(2);
                    assertThat(registry.get("ratelimit.backend.skipped").counter().count()).isEqualTo(3);
                    assertThat(registry.get("ratelimit.backend.circuit.open").gauge().value()).isEqualTo(1);
                });
    }
}
