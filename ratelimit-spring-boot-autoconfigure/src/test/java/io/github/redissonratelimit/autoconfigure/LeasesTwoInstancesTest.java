package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.redissonratelimit.admin.RateLimiters;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.lease.LeasingRateLimitBackend;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * Two application contexts on one real Redis, each holding a lease of one limit: a reset or an override made through
 * one drops the leases of both (the same mechanism that makes them forget remembered rejections), so the next
 * decision of the other goes to Redis. The lease period (10 s) outlasts the test: no lease ends on its own.
 */
class LeasesTwoInstancesTest {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();

    private ApplicationContextRunner instance() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, AopAutoConfiguration.class))
                .withPropertyValues(RateLimitAutoConfigurationRedisTest.TEST_BACKEND_TIMEOUT)
                .withBean(RedissonClient.class, redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown"))
                .withBean(Search.class);
    }

    public static class Search {

        @RateLimit(name = "search", key = "'search'", rate = 1000, interval = 3600, lease = "10s")
        public String search() {
            return "ok";
        }
    }

    @Test
    void aResetOnOneInstanceDropsTheLeaseOfTheOtherWhoseNextDecisionGoesToRedis() {
        instance().run(first -> instance().run(second -> {
            holdALease(first);
            holdALease(second);
            LeasingRateLimitBackend leases = leases(second);
            long calls = leases.redisCalls();
            long hits = leases.leaseHits();

            RateLimiters.ResetResult reset = first.getBean(RateLimiters.class).reset("search", "search");

            assertThat(reset.instancesConfirmed()).isEqualTo(2);
            assertThat(TestBackends.heldPermits(leases(first), name(first))).isZero();
            assertThat(TestBackends.heldPermits(leases, name(second))).as("the lease dropped with the reset").isZero();
            assertThat(redis.keys("rate_limit:{search}*")).isEmpty();
            assertThat(second.getBean(Search.class).search()).isEqualTo("ok");
            assertThat(leases.redisCalls()).as("the next decision went to Redis").isEqualTo(calls + 1);
            assertThat(leases.leaseHits()).isEqualTo(hits);
            assertThat(redis.command("GET", "rate_limit:{search}:value")).as("one permit taken since the reset")
                    .hasToString("999");
        }));
    }

    @Test
    void anOverrideOnOneInstanceDropsTheLeaseOfTheOtherWhichLeasesAgainUnderTheNewLimit() {
        instance().run(first -> instance().run(second -> {
            holdALease(second);
            LeasingRateLimitBackend leases = leases(second);
            long calls = leases.redisCalls();

            first.getBean(RateLimiters.class).override("search", 500, Duration.ofHours(1), null);

            assertThat(second.getBean(RateLimiters.class).overrides()).containsKey("search");
            assertThat(TestBackends.heldPermits(leases, name(second))).as("the lease dropped with the override")
                    .isZero();
            holdALease(second);
            assertThat(leases.redisCalls()).as("decisions went to Redis until a new lease was held")
                    .isGreaterThan(calls);
            assertThat(redis.command("HGET", "rate_limit:{search}", "rate")).hasToString("500");
        }));
    }

    /** Calls until the instance holds a lease of several permits (the first decisions are plain ones). */
    private static void holdALease(AssertableApplicationContext context) {
        Search search = context.getBean(Search.class);
        for (int call = 0; TestBackends.heldPermits(leases(context), name(context)) < 2; call++) {
            assertThat(call).as("calls before a lease was held").isLessThan(10);
            assertThat(search.search()).isEqualTo("ok");
        }
    }

    private static LeasingRateLimitBackend leases(AssertableApplicationContext context) {
        return TestBackends.layer(context.getBean(RateLimitBackend.class), LeasingRateLimitBackend.class);
    }

    private static String name(AssertableApplicationContext context) {
        return context.getBean(LimiterNaming.class).limiterName("search");
    }
}
