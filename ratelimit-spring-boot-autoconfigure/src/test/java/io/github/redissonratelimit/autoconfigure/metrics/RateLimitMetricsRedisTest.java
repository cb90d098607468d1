package io.github.redissonratelimit.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.metrics.RateLimitMetrics;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/** What the meters count, on a real Redis. */
@ExtendWith(RealRedisExtension.class)
class RateLimitMetricsRedisTest {

    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                        RateLimitMetricsAutoConfiguration.class, AopAutoConfiguration.class,
                        MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                        CompositeMeterRegistryAutoConfiguration.class))
                // a deadline no decision of a loaded test machine runs into: a call decided in memory would count as
                // local_allowed, not allowed
                .withPropertyValues("ratelimit.backend-timeout=5s")
                .withBean(RedissonClient.class, redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown"))
                .withBean(Inventory.class);
    }

    public static class Inventory {
        @RateLimit(name = "inventory", key = "'inventory:' + #sku", rate = 2, interval = 60)
        public int count(String sku) {
            return 7;
        }

        @RateLimit(name = "restock", key = "'restock:' + #sku", rate = 4, interval = 60)
        public int restock(String sku) {
            return 4;
        }

        @RateLimit(name = "browse", key = "'browse'", rate = 1000, interval = 60, lease = "5s")
        public int browse() {
            return 1;
        }
    }

    /** A dashboard shows the circuit closed and no skipped calls from the start, not "no data" until an outage. */
    @Test
    void theOutageMetersAreThereAtZeroBeforeAnyOutage() {
        runner().run(context -> {
            context.getBean(Inventory.class).count("c");
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("ratelimit.backend.circuit.open").gauge().value()).isZero();
            assertThat(registry.get("ratelimit.backend.skipped").counter().count()).isZero();
        });
    }

    /** A leased limit's calls, from the lease or by Redis; a limit without a lease is in neither. */
    @Test
    void countsTheDecisionsOfALeasedLimitByWhereTheyWereMade() {
        runner().run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("ratelimit.leased.decisions").tag("source", "lease").functionCounter().count())
                    .as("there before the first lease").isZero();
            assertThat(registry.get("ratelimit.leased.limiters").gauge().value()).isZero();
            Inventory inventory = context.getBean(Inventory.class);
            inventory.count("a");
            for (int i = 0; i < 50; i++) {
                inventory.browse();
            }
            double fromLease = registry.get("ratelimit.leased.decisions").tag("source", "lease").functionCounter()
                    .count();
            double byRedis = registry.get("ratelimit.leased.decisions").tag("source", "redis").functionCounter()
                    .count();
            assertThat(fromLease + byRedis).as("every call of the leased limit, once").isEqualTo(50);
            assertThat(byRedis).as("a plain decision, then a lease of 10 (5 s / the shortest span of 0.5 s), ...")
                    .isBetween(1.0, 10.0);
            assertThat(registry.get("ratelimit.leased.limiters").gauge().value()).as("the one leased limit")
                    .isEqualTo(1);
        });
    }

    @Test
    void countsTheCallsNearTheLimitAtTheConfiguredShare() {
        runner().withPropertyValues("ratelimit.metrics.near-limit-share=0.5").run(context -> {
            Inventory inventory = context.getBean(Inventory.class);
            for (int i = 0; i < 4; i++) {
                inventory.restock("a");
            }
            assertThatThrownBy(() -> inventory.restock("a")).isInstanceOf(RateLimitExceededException.class);

            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get(RateLimitMetrics.NEAR_LIMIT).tag("limit", "restock").counter().count())
                    .as("of 4, the 3rd and 4th calls leave 1 and 0, less than half; the rejection is not counted")
                    .isEqualTo(2);
        });
        runner().run(context -> {
            Inventory inventory = context.getBean(Inventory.class);
            inventory.restock("b");
            inventory.restock("b");
            inventory.restock("b");
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get(RateLimitMetrics.NEAR_LIMIT).tag("limit", "restock").counter().count())
                    .as("by default less than 20 %% of 4 left: none after 3 of 4").isZero();
            inventory.restock("b");
            assertThat(registry.get(RateLimitMetrics.NEAR_LIMIT).tag("limit", "restock").counter().count())
                    .isEqualTo(1);
        });
    }

    @Test
    void recordsRequestsByResultAndBackendLatencyInTheApplicationsRegistry() {
        runner().run(context -> {
            assertThat(context).hasSingleBean(RateLimitMetrics.class);
            Inventory inventory = context.getBean(Inventory.class);
            inventory.count("a");
            inventory.count("a");
            assertThatThrownBy(() -> inventory.count("a")).isInstanceOf(RateLimitExceededException.class);
            inventory.count("b");

            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("ratelimit.requests").tags("limit", "inventory", "result", "allowed").counter().count())
                    .isEqualTo(3);
            assertThat(registry.get("ratelimit.requests").tags("limit", "inventory", "result", "rejected").counter().count())
                    .isEqualTo(1);
            assertThat(registry.get("ratelimit.requests").tags("limit", "inventory", "result", "error").counter().count())
                    .isZero();
            Timer latency = registry.get("ratelimit.backend.latency").tag("limit", "inventory").timer();
            assertThat(latency.count()).isEqualTo(4);
            assertThat(latency.max(TimeUnit.NANOSECONDS)).isPositive();
        });
    }
}
