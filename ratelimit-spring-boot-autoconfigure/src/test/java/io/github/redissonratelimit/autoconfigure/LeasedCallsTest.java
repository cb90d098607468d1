package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.lease.LeaseCounts;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * What a limit's other attributes do still holds with a lease, through the whole annotated stack on a real Redis:
 * cost, {@code chargeWhen} refunds, shadow, waiting, and a token bucket's burst. Each test also checks that the lease
 * served some of its calls, so that it proves something about leases.
 */
@ExtendWith(RealRedisExtension.class)
class LeasedCallsTest {

    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, AopAutoConfiguration.class))
                .withBean(RedissonClient.class, redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown"))
                .withBean(Catalog.class);
    }

    public static class Catalog {

        private final AtomicInteger shadowRuns = new AtomicInteger();

        /** Read through the proxy, whose own fields are unset. */
        public int shadowRuns() {
            return shadowRuns.get();
        }

        @RateLimit(name = "export", key = "'export'", rate = 100, interval = 60, lease = "5s", cost = "#items")
        public int export(int items) {
            return items;
        }

        @RateLimit(name = "login", key = "'login'", rate = 5, interval = 60, lease = "5s",
                chargeWhen = "#result == false")
        public boolean login(boolean right) {
            return right;
        }

        @RateLimit(name = "preview", key = "'preview'", rate = 5, interval = 60, lease = "5s", shadow = true)
        public void preview() {
            shadowRuns.incrementAndGet();
        }

        @RateLimit(name = "poll", key = "'poll'", rate = 4, interval = 1, lease = "100ms", waitTimeout = "5s")
        public void poll() {
        }

        @RateLimit(name = "burst", key = "'burst'", algorithm = RateLimitAlgorithm.TOKEN_BUCKET, rate = 10,
                interval = 3600, burst = 40, lease = "5s")
        public void burst() {
        }
    }

    /**
     * Calls of 3 permits on a rate of 100: at most 33 pass, as without a lease; 32 when the last call finds 2 permits
     * left in the lease, which go back to Redis while its own call to Redis is on the way.
     */
    @Test
    void aCallTakesItsCostFromTheLease() {
        runner().run(context -> {
            Catalog catalog = context.getBean(Catalog.class);
            int passed = 0;
            while (passed < 40 && allowed(() -> catalog.export(3))) {
                passed++;
            }
            assertThat(passed).as("calls of 3 permits passed of 100").isBetween(32, 33);
            assertThat(context.getBean(LeaseCounts.class).leaseHits()).as("served from the lease").isPositive();
        });
    }

    /** Successful logins give their permit back, into the lease: only failures count, 5 of them, then refused. */
    @Test
    void aRefundGoesBackAndOnlyChargedCallsCount() {
        runner().run(context -> {
            Catalog catalog = context.getBean(Catalog.class);
            for (int i = 0; i < 20; i++) {
                assertThat(catalog.login(true)).as("success %d, its permit given back", i + 1).isTrue();
            }
            for (int i = 0; i < 5; i++) {
                assertThat(catalog.login(false)).as("failure %d, charged", i + 1).isFalse();
            }
            assertThatThrownBy(() -> catalog.login(true)).isInstanceOf(RateLimitExceededException.class);
            assertThat(context.getBean(LeaseCounts.class).leaseHits()).as("served from the lease").isPositive();
        });
    }

    /** A shadow limit never refuses, lease or not. */
    @Test
    void aShadowLimitRunsEveryCall() {
        runner().run(context -> {
            Catalog catalog = context.getBean(Catalog.class);
            for (int i = 0; i < 12; i++) {
                catalog.preview();
            }
            assertThat(catalog.shadowRuns()).isEqualTo(12);
        });
    }

    /** A caller that waits gets its permit when the window gives one back: 10 calls on 4 a second all pass. */
    @Test
    void aWaitingCallerGetsItsPermit() {
        runner().run(context -> {
            Catalog catalog = context.getBean(Catalog.class);
            for (int i = 0; i < 10; i++) {
                catalog.poll();
            }
            assertThat(context.getBean(LeaseCounts.class).leaseHits() + context.getBean(LeaseCounts.class)
                    .redisCalls()).as("every call decided through the lease layer").isGreaterThanOrEqualTo(10);
        });
    }

    /**
     * A token bucket of burst 40 leased for 5 s at 10 an hour: a full bucket leases at most burst - L / tau (40 -
     * 5 s / 360 s, so 39), and at most 40 calls pass in all, the lease's stamp costing at most one.
     */
    @Test
    void aLeasedTokenBucketKeepsItsBurst() {
        runner().run(context -> {
            Catalog catalog = context.getBean(Catalog.class);
            int passed = 0;
            while (passed < 60 && allowed(catalog::burst)) {
                passed++;
            }
            assertThat(passed).as("calls passed of a burst of 40").isBetween(39, 40);
            assertThat(context.getBean(LeaseCounts.class).leaseHits()).as("served from the lease").isPositive();
        });
    }

    private static boolean allowed(Runnable call) {
        try {
            call.run();
            return true;
        }
        catch (RateLimitExceededException ex) {
            return false;
        }
    }
}
