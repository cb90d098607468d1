package io.github.redissonratelimit.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.springframework.aop.framework.ProxyFactory;

import io.github.redissonratelimit.local.DecisionStacks;
import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.outcome.RateLimitOutcome;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.operation.AnnotationRateLimitOperationSource;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

@ExtendWith(RealRedisExtension.class)
class RateLimitMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private RedissonClient redisson;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        redis.flushAll();
        redisson = redis.newRedissonClient();
    }

    @AfterEach
    void tearDown() {
        redisson.shutdown();
    }

    private Orders limited(RateLimitBackend backend) {
        return limited(backend, new RateLimitMetrics(registry));
    }

    private Orders limited(RateLimitBackend backend, RateLimitMetrics metrics) {
        RateLimitInterceptor interceptor = new RateLimitInterceptor(
                new AnnotationRateLimitOperationSource(new KeyExpressionParser()),
                DecisionStacks.around(backend));
        interceptor.setListeners(List.of(metrics));
        ProxyFactory factory = new ProxyFactory(new Orders());
        factory.setProxyTargetClass(true);
        factory.addAdvice(interceptor);
        return (Orders) factory.getProxy();
    }

    private double requests(String limit, String result) {
        return registry.get("ratelimit.requests").tag("limit", limit).tag("result", result).counter().count();
    }

    @Test
    void countsDecisionsPerLimitAndResultAndTimesTheBackend() {
        Orders orders = limited(new RedissonRateLimitBackend(redisson));
        for (int i = 0; i < 5; i++) {
            try {
                orders.submit("u" + (i % 2));
            }
            catch (RateLimitExceededException ex) {
                // counted
            }
        }

        assertThat(requests("orders", "allowed")).isEqualTo(4);
        assertThat(requests("orders", "rejected")).isEqualTo(1);
        assertThat(requests("orders", "error")).isZero();
        Timer latency = registry.get("ratelimit.backend.latency").tag("limit", "orders").timer();
        assertThat(latency.count()).isEqualTo(5);
        assertThat(latency.totalTime(TimeUnit.NANOSECONDS)).isPositive();
        assertThat(registry.find("ratelimit.requests").tag("limit", "orders").counters())
                .as("one series per limit and result, never per key").hasSize(3);
    }

    @Test
    void aFailingBackendCountsAsErrorAndTheCallFails() {
        RateLimitBackend down = request -> {
            throw new IllegalStateException("Redis is down");
        };
        Orders orders = limited(down);

        assertThatThrownBy(() -> orders.submit("u")).isInstanceOf(IllegalStateException.class).hasMessage("Redis is down");
        assertThat(requests("orders", "error")).isEqualTo(1);
        assertThat(requests("orders", "allowed")).isZero();
    }

    @Test
    void countsAllowedDecisionsThatLeaveLessThanTheNearLimitShareFree() {
        Orders orders = limited(new RedissonRateLimitBackend(redisson));
        for (int i = 0; i < 12; i++) {
            try {
                orders.search("u");
            }
            catch (RateLimitExceededException ex) {
                // not near the limit: over it
            }
        }
        orders.search("other");

        assertThat(requests("search", "allowed")).isEqualTo(11);
        assertThat(registry.get(RateLimitMetrics.NEAR_LIMIT).tag("limit", "search").counter().count())
                .as("of 10 per minute, the 9th and 10th calls leave 1 and 0 free, fewer than 20 %% of 10").isEqualTo(2);
        assertThat(registry.find(RateLimitMetrics.NEAR_LIMIT).counters()).as("one series per limit, never per key")
                .hasSize(1);
    }

    @Test
    void theShareIsOfATokenBucketsBurstAndCanBeSet() {
        Orders orders = limited(new RedissonRateLimitBackend(redisson), new RateLimitMetrics(registry, 0.5));
        for (int i = 0; i < 4; i++) {
            orders.export("u");
        }

        assertThat(registry.get(RateLimitMetrics.NEAR_LIMIT).tag("limit", "export").counter().count())
                .as("a burst of 4: the 3rd and 4th calls leave 1 and 0 tokens, fewer than half of 4").isEqualTo(2);
    }

    /** What an in-memory decision leaves is this instance's share of the rate, not the limit's. */
    @Test
    void decisionsInMemoryDuringAnOutageAreNotNearTheLimit() {
        RateLimitMetrics metrics = new RateLimitMetrics(registry);
        LimitSpec spec = new LimitSpec(10, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        for (RateLimitOutcome.Result result : List.of(RateLimitOutcome.Result.LOCAL_ALLOWED,
                RateLimitOutcome.Result.ALLOWED)) {
            metrics.onOutcomes(List.of(new RateLimitOutcome("search", "search", "u", "rate_limit:{u}", spec, 1, result,
                    Duration.ZERO, Duration.ofMillis(1), null, new LimitState(0, Duration.ZERO))));
        }

        assertThat(registry.get(RateLimitMetrics.NEAR_LIMIT).tag("limit", "search").counter().count()).isEqualTo(1);
    }

    @Test
    void aShareOfZeroCountsNothing() {
        Orders orders = limited(new RedissonRateLimitBackend(redisson), new RateLimitMetrics(registry, 0));
        orders.submit("u");
        orders.submit("u");

        assertThat(requests("orders", "allowed")).isEqualTo(2);
        assertThat(registry.find(RateLimitMetrics.NEAR_LIMIT).counters()).isEmpty();
        assertThatThrownBy(() -> new RateLimitMetrics(registry, 1.5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nearLimitShare");
    }

    public static class Orders {
        @RateLimit(name = "orders", key = "'metrics:' + #user", rate = 2, interval = 60)
        public String submit(String user) {
            return "ok";
        }

        @RateLimit(name = "search", key = "'metrics:search:' + #user", rate = 10, interval = 60)
        public String search(String user) {
            return "ok";
        }

        @RateLimit(name = "export", key = "'metrics:export:' + #user", rate = 1, interval = 3600,
                algorithm = RateLimitAlgorithm.TOKEN_BUCKET, burst = 4)
        public String export(String user) {
            return "ok";
        }
    }
}
