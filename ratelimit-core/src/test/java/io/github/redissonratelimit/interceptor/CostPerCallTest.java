package io.github.redissonratelimit.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.BeanCreationException;

import io.github.redissonratelimit.InvalidRateLimitException;
import io.github.redissonratelimit.RateLimitCostException;
import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.RateLimitKeyException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.outcome.RateLimitOutcome;
import io.github.redissonratelimit.test.redis.HeldPermits;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

/** {@code @RateLimit(cost = "...")}: each call takes the permits its arguments cost, counted in Redis. */
@ExtendWith(RealRedisExtension.class)
class CostPerCallTest {

    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    @Test
    void aCallTakesExactlyThePermitsItsCostGives() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Batches.class)) {
            Batches batches = beans.bean(Batches.class);

            assertThat(batches.submit("ann", List.of("a", "b", "c"))).isEqualTo(3);
            try (RespClient cli = redis.cli()) {
                assertThat(cli.string("GET", "rate_limit:{batch:ann}:value")).isEqualTo("7");
                assertThat(cli.number("ZCARD", "rate_limit:{batch:ann}:permits")).isEqualTo(1);
            }
            assertThat(batches.submit("ann", List.of("1", "2", "3", "4", "5", "6", "7"))).isEqualTo(7);
            assertThatThrownBy(() -> batches.submit("ann", List.of("one more")))
                    .isInstanceOfSatisfying(RateLimitExceededException.class,
                            ex -> assertThat(ex.getPermits()).isEqualTo(1));
            try (RespClient cli = redis.cli()) {
                assertThat(cli.string("GET", "rate_limit:{batch:ann}:value")).isEqualTo("0");
                assertThat(HeldPermits.of(cli, "rate_limit:{batch:ann}:permits")).isEqualTo(3 + 7);
            }
            assertThat(beans.outcomes()).extracting(call -> call.get(0).permits()).containsExactly(3L, 7L, 1L);
            assertThat(batches.runs()).isEqualTo(2);
        }
    }

    @Test
    void aCostOfZeroTakesNothingAndSkipsTheLimit() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Batches.class)) {
            Batches batches = beans.bean(Batches.class);

            assertThat(batches.submit("bob", List.of())).isZero();
            assertThat(batches.submit("bob", List.of())).isZero();

            assertThat(batches.runs()).isEqualTo(2);
            assertThat(beans.outcomes()).isEmpty();
            assertThat(redis.keys("rate_limit:*")).isEmpty();
        }
    }

    @Test
    void aNegativeCostOrOneAboveTheRateRefusesTheCallNamingTheLimit() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Batches.class)) {
            Batches batches = beans.bean(Batches.class);

            assertThatThrownBy(() -> batches.weighed(-1)).isInstanceOfSatisfying(RateLimitCostException.class, ex -> {
                assertThat(ex).isInstanceOf(RateLimitKeyException.class);
                assertThat(ex.getLimitName()).isEqualTo("weighed");
                assertThat(ex.getDisplayName()).isEqualTo("weighed");
                assertThat(ex.getCost()).isEqualTo(-1);
                assertThat(ex.getExpression()).isEqualTo("#weight");
                assertThat(ex.getRequestProblem()).isEqualTo("a negative cost");
                assertThat(ex).hasMessage("@RateLimit cost \"#weight\" of limit 'weighed' on " + Batches.class.getName()
                        + ".weighed(Object) gave -1, a negative cost");
            });
            assertThatThrownBy(() -> batches.weighed(11)).isInstanceOfSatisfying(RateLimitCostException.class, ex -> {
                assertThat(ex.getCost()).isEqualTo(11);
                assertThat(ex.getRequestProblem()).isEqualTo("a cost above the rate");
                assertThat(ex).hasMessageEndingWith("gave 11, more than the rate (10 per PT1M): no call of this cost "
                        + "could ever be allowed");
            });
            assertThatThrownBy(() -> batches.weighed("many")).isInstanceOfSatisfying(RateLimitCostException.class,
                    ex -> {
                        assertThat(ex.getCost()).isNull();
                        assertThat(ex.getRequestProblem()).isEqualTo("no valid cost");
                        assertThat(ex).hasMessageEndingWith("gave String 'many' instead of a whole number");
                    });
            assertThatThrownBy(() -> batches.weighed(null)).isInstanceOfSatisfying(RateLimitCostException.class,
                    ex -> assertThat(ex).hasMessageEndingWith("gave null instead of a whole number"));
            assertThatThrownBy(() -> batches.weighed(2.5)).isInstanceOf(RateLimitCostException.class);

            assertThat(batches.runs()).isZero();
            assertThat(beans.outcomes()).isEmpty();
            assertThat(redis.keys("rate_limit:*")).isEmpty();

            // a whole number, also as text, is taken as it is; the rate itself is the largest cost
            batches.weighed("4");
            batches.weighed(6L);
            try (RespClient cli = redis.cli()) {
                assertThat(cli.string("GET", "rate_limit:{weighed}:value")).isEqualTo("0");
            }
        }
    }

    @Test
    void aRejectedCallGetsBackTheCostAnEarlierLimitTook() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Batches.class)) {
            Batches batches = beans.bean(Batches.class);

            batches.weightedThenDaily("cy", List.of("a", "b", "c", "d"));
            assertThatThrownBy(() -> batches.weightedThenDaily("cy", List.of("e", "f", "g")))
                    .isInstanceOfSatisfying(RateLimitExceededException.class,
                            ex -> assertThat(ex.getLimitName()).isEqualTo("daily"));
            try (RespClient cli = redis.cli()) {
                assertThat(cli.string("GET", "rate_limit:{weighted:cy}:value")).isEqualTo("6");
                assertThat(cli.number("ZCARD", "rate_limit:{weighted:cy}:permits")).isEqualTo(1);
            }
            assertThat(beans.outcomes().get(1)).extracting(RateLimitOutcome::permits).containsExactly(3L, 1L);
        }
    }

    @Test
    void costTogetherWithPermitsFailsStartupNamingTheFix() {
        assertThatThrownBy(() -> LimitedBeans.start(redis, CostAndPermits.class).close())
                .isInstanceOf(BeanCreationException.class)
                .satisfies(ex -> assertThat(LimitedCalls.causeOfType(ex, InvalidRateLimitException.class))
                        .hasMessage("Invalid @RateLimit on " + CostAndPermits.class.getName() + ".call(List): cost "
                                + "\"#items.size()\" is set together with permits = 2. Fix: use either permits (the same "
                                + "number of permits for every call) or cost (computed per call), not both: remove "
                                + "permits"));
    }

    @Test
    void aCostThatReadsWhatTheMethodDoesNotHaveFailsStartup() {
        assertThatThrownBy(() -> LimitedBeans.start(redis, MisspeltCost.class).close())
                .isInstanceOf(BeanCreationException.class)
                .satisfies(ex -> assertThat(LimitedCalls.causeOfType(ex, InvalidRateLimitException.class))
                        .hasMessageContaining("MisspeltCost.call(List)")
                        .hasMessageContaining("cost \"#itemz.size()\" refers to #itemz"));
    }

    public static class Batches {

        private final AtomicInteger runs = new AtomicInteger();

        int runs() {
            return runs.get();
        }

        @RateLimit(name = "batch", key = "'batch:' + #user", rate = 10, interval = 60, cost = "#items.size()")
        public int submit(String user, List<String> items) {
            runs.incrementAndGet();
            return items.size();
        }

        @RateLimit(name = "weighed", rate = 10, interval = 60, cost = "#weight")
        public void weighed(Object weight) {
            runs.incrementAndGet();
        }

        @RateLimit(name = "weighted", key = "'weighted:' + #user", rate = 10, interval = 60, cost = "#items.size()")
        @RateLimit(name = "daily", key = "'daily:' + #user", rate = 1, interval = 1, unit = TimeUnit.DAYS)
        public void weightedThenDaily(String user, List<String> items) {
        }
    }

    public static class CostAndPermits {
        @RateLimit(rate = 10, permits = 2, cost = "#items.size()")
        public void call(List<String> items) {
        }
    }

    public static class MisspeltCost {
        @RateLimit(rate = 10, cost = "#itemz.size()")
        public void call(List<String> items) {
        }
    }
}
