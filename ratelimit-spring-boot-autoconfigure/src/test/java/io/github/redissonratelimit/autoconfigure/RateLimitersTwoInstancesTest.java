package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.admin.RateLimiters;
import io.github.redissonratelimit.admin.RateLimiters.ResetResult;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.limiter.LocalRejectionCache;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * Two application contexts on one real Redis, as two instances of an application: a reset or an override made
 * through one reaches the other, what the other remembers included, and an override reaches an instance started
 * later. Counted with what Redis holds and with each instance's local rejection cache, not with the clock.
 */
class RateLimitersTwoInstancesTest {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();

    private ApplicationContextRunner instance() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, AopAutoConfiguration.class))
                .withPropertyValues(RateLimitAutoConfigurationRedisTest.TEST_BACKEND_TIMEOUT)
                .withBean(RedissonClient.class, redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown"))
                .withBean(Orders.class);
    }

    public static class Orders {

        @RateLimit(name = "order-submit", key = "'order:' + #userId", rate = 2, interval = 3600)
        public String submit(String userId) {
            return "ok";
        }

        @RateLimit(name = "order-vip", key = "'order:vip:' + #userId", rate = 2, interval = 3600)
        public String vip(String userId) {
            return "ok";
        }
    }

    @Test
    void aResetOfOneCallerOnOneInstanceLetsTheOtherAdmitAtOnceThoughItRememberedTheRejection() {
        instance().run(first -> instance().run(second -> {
            first.getBean(Orders.class).submit("42");
            first.getBean(Orders.class).submit("42");
            Orders orders = second.getBean(Orders.class);
            assertThatThrownBy(() -> orders.submit("42")).isInstanceOf(RateLimitExceededException.class);
            assertThat(localRejections(second).size()).as("the second instance remembers the rejection").isEqualTo(1);
            long rejectedFromMemory = localRejections(second).localRejections();
            assertThatThrownBy(() -> orders.submit("42")).isInstanceOf(RateLimitExceededException.class);
            assertThat(localRejections(second).localRejections()).isEqualTo(rejectedFromMemory + 1);

            ResetResult reset = first.getBean(RateLimiters.class).reset("order-submit", "order:42");

            assertThat(reset.deletedKeys()).isEqualTo(3);
            assertThat(reset.instancesConfirmed()).as("both instances confirmed before the reset returned").isEqualTo(2);
            assertThat(localRejections(second).size()).isZero();
            assertThat(redis.keys("rate_limit:{order:42}*")).isEmpty();
            assertThat(orders.submit("42")).isEqualTo("ok");
            assertThat(redis.command("GET", "rate_limit:{order:42}:value")).hasToString("1");
        }));
    }

    @Test
    void aResetOfALimitDeletesEveryCallerOfItAndNoOtherLimitsKeys() {
        instance().run(first -> instance().run(second -> {
            Orders orders = first.getBean(Orders.class);
            orders.submit("42");
            orders.submit("7");
            orders.vip("1");
            second.getBean(Orders.class).submit("42");
            assertThatThrownBy(() -> second.getBean(Orders.class).submit("42"))
                    .isInstanceOf(RateLimitExceededException.class);

            ResetResult reset = first.getBean(RateLimiters.class).reset("order-submit");

            assertThat(reset.deletedKeys()).isEqualTo(6);
            assertThat(reset.instancesConfirmed()).isEqualTo(2);
            assertThat(redis.keys("rate_limit:{order:4*")).isEmpty();
            assertThat(redis.keys("rate_limit:{order:7*")).isEmpty();
            assertThat(redis.keys("rate_limit:{order:vip:1}*")).as("order-vip's keys start with order: too")
                    .hasSize(3);
            assertThat(second.getBean(Orders.class).submit("42")).isEqualTo("ok");
            assertThat(redis.command("GET", "rate_limit:{order:42}:value")).hasToString("1");
        }));
    }

    @Test
    void anOverrideOnOneInstanceIsAppliedByTheOtherAndByAnInstanceStartedLater() {
        instance().run(first -> instance().run(second -> {
            Orders orders = second.getBean(Orders.class);
            orders.submit("42");
            orders.submit("42");

            first.getBean(RateLimiters.class).by("ops").override("order-submit", 1, Duration.ofHours(2), null);

            RateLimiters secondLimiters = second.getBean(RateLimiters.class);
            assertWithinOneSecond(() -> secondLimiters.overrides().containsKey("order-submit"));
            assertThat(secondLimiters.overrides().get("order-submit").by()).isEqualTo("ops");
            assertThat(redis.command("HGET", "rate_limit:%overrides", "order-submit").toString())
                    .startsWith("1 7200000 - ").endsWith(" ops");
            assertThat(orders.submit("5")).isEqualTo("ok");
            assertThatThrownBy(() -> orders.submit("5")).isInstanceOf(RateLimitExceededException.class);
            assertThat(redis.command("HGET", "rate_limit:{order:5}", "rate")).hasToString("1");
            assertThat(redis.command("HGET", "rate_limit:{order:5}", "interval")).hasToString("7200000");
            assertThatThrownBy(() -> orders.submit("42")).as("the lowered limit: 2 held, 1 allowed")
                    .isInstanceOf(RateLimitExceededException.class);
            assertThat(redis.command("HGET", "rate_limit:{order:42}", "rate")).hasToString("1");
            assertThat(orders.vip("1")).isEqualTo("ok");
            assertThat(redis.command("HGET", "rate_limit:{order:vip:1}", "rate")).as("other limits keep theirs")
                    .hasToString("2");

            instance().run(third -> {
                assertThat(third.getBean(RateLimiters.class).overrides()).containsKey("order-submit");
                Orders later = third.getBean(Orders.class);
                assertThat(later.submit("9")).isEqualTo("ok");
                assertThatThrownBy(() -> later.submit("9")).isInstanceOf(RateLimitExceededException.class);

                assertThat(third.getBean(RateLimiters.class).clearOverride("order-submit")).isTrue();
            });
            assertWithinOneSecond(() -> first.getBean(RateLimiters.class).overrides().isEmpty());
            assertThat(secondLimiters.overrides()).isEmpty();
            assertThat(orders.submit("5")).as("back to 2 per hour: the second permit").isEqualTo("ok");
            assertThat(redis.command("HGET", "rate_limit:{order:5}", "rate")).hasToString("2");
            assertThat(redis.keys("rate_limit:%overrides")).isEmpty();
        }));
    }

    @Test
    void resetAllDeletesEveryLimiterAndLeavesTheOverrides() {
        instance().run(first -> instance().run(second -> {
            first.getBean(Orders.class).submit("42");
            second.getBean(Orders.class).vip("1");
            first.getBean(RateLimiters.class).override("order-vip", 5, Duration.ofMinutes(1), 1L);
            redis.command("SET", "rate_limit:unrelated", "kept");
            redis.command("SET", "{other}:value", "kept");

            ResetResult reset = second.getBean(RateLimiters.class).resetAll();

            assertThat(reset.deletedKeys()).isEqualTo(6);
            assertThat(redis.keys("rate_limit:{*")).isEmpty();
            assertThat(redis.keys("rate_limit:unrelated")).hasSize(1);
            assertThat(redis.keys("{other}:value")).hasSize(1);
            assertThat(second.getBean(RateLimiters.class).overrides()).containsKey("order-vip");
        }));
    }

    @Test
    void anUnknownLimitOrAMissingKeyIsRefused() {
        instance().run(context -> {
            RateLimiters rateLimiters = context.getBean(RateLimiters.class);
            assertThatThrownBy(() -> rateLimiters.reset("nothing")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("No rate limit is named 'nothing'");
            assertThatThrownBy(() -> rateLimiters.reset("order-submit", null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("give the key");
            assertThatThrownBy(() -> rateLimiters.override("order-submit", 0, Duration.ofSeconds(1), null))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(rateLimiters.overrides()).isEmpty();
        });
    }

    private static LocalRejectionCache localRejections(AssertableApplicationContext context) {
        return TestBackends.layer(context.getBean(RateLimitBackend.class), LocalRejectionCache.class);
    }

    /** Polls for at most one second. */
    private static void assertWithinOneSecond(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(1).toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(condition.getAsBoolean()).as("within one second").isTrue();
    }
}
