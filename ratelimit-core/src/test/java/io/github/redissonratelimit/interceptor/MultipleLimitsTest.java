package io.github.redissonratelimit.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.BeanCreationException;

import io.github.redissonratelimit.InvalidRateLimitException;
import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.annotation.RateLimits;
import io.github.redissonratelimit.outcome.RateLimitOutcome;
import io.github.redissonratelimit.outcome.RateLimitOutcome.Result;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

@ExtendWith(RealRedisExtension.class)
class MultipleLimitsTest {

    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    @Test
    void aCallRejectedByALaterLimitConsumesNothingFromTheEarlierOnes() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Search.class)) {
            Search search = beans.bean(Search.class);

            assertThat(search.search("ann")).isEqualTo("results for ann");
            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(() -> search.search("ann")).isInstanceOfSatisfying(RateLimitExceededException.class,
                        ex -> assertThat(ex.getLimitName()).isEqualTo("search-daily"));
            }

            try (RespClient cli = redis.cli()) {
                // 3 calls took a burst permit after the first; each was given back when the daily limit said no
                assertThat(cli.string("GET", "rate_limit:{burst:ann}:value")).isEqualTo("2");
                assertThat(cli.number("ZCARD", "rate_limit:{burst:ann}:permits")).isEqualTo(1);
                assertThat(cli.string("GET", "rate_limit:{daily:ann}:value")).isEqualTo("0");
            }
            // so the burst limit still has its 2 permits for a method that shares it
            assertThat(LimitedCalls.allowedOf(4, () -> search.burstOnly("ann"))).isEqualTo(2);
            assertThat(search.runs()).isEqualTo(3);
        }
    }

    @Test
    void limitsAreCheckedInDeclarationOrderAndEachIsReported() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Search.class)) {
            Search search = beans.bean(Search.class);
            search.search("bob");
            assertThatThrownBy(() -> search.search("bob")).isInstanceOf(RateLimitExceededException.class);

            assertThat(beans.outcomes()).hasSize(2);
            assertThat(beans.outcomes().get(0)).extracting(RateLimitOutcome::limitName, RateLimitOutcome::result)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("search-burst", Result.ALLOWED),
                            org.assertj.core.groups.Tuple.tuple("search-daily", Result.ALLOWED));
            assertThat(beans.outcomes().get(1)).extracting(RateLimitOutcome::limitName, RateLimitOutcome::result)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("search-burst", Result.ALLOWED),
                            org.assertj.core.groups.Tuple.tuple("search-daily", Result.REJECTED));
        }
    }

    @Test
    void theFirstLimitThatRejectsStopsTheCheck() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Search.class)) {
            Search search = beans.bean(Search.class);
            for (int i = 0; i < 2; i++) {
                search.tightFirst("cy");
            }
            assertThatThrownBy(() -> search.tightFirst("cy")).isInstanceOfSatisfying(RateLimitExceededException.class,
                    ex -> assertThat(ex.getLimitName()).isEqualTo("tight"));

            assertThat(beans.outcomes().get(2)).extracting(RateLimitOutcome::limitName).containsExactly("tight");
            try (RespClient cli = redis.cli()) {
                assertThat(cli.string("GET", "rate_limit:{loose:cy}:value")).isEqualTo("98");
            }
        }
    }

    @Test
    void aMetaAnnotationCanCarrySeveralLimits() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Search.class)) {
            Search search = beans.bean(Search.class);

            assertThat(LimitedCalls.allowedOf(3, search::byMeta)).isEqualTo(1);
            assertThat(beans.outcomes().get(0)).extracting(RateLimitOutcome::limitName)
                    .containsExactly("meta-minute", "meta-hour");
        }
    }

    @Test
    void limitsThatWouldShareOneLimiterFailStartup() {
        assertThatThrownBy(() -> LimitedBeans.start(redis, SameKey.class).close())
                .isInstanceOf(BeanCreationException.class)
                .satisfies(ex -> assertThat(LimitedCalls.causeOfType(ex, InvalidRateLimitException.class))
                        .hasMessageContaining("SameKey.call(String)")
                        .hasMessageContaining("key \"#user\" is the same for")
                        .hasMessageContaining("Fix: give each @RateLimit of the method its own key, e.g. "
                                + "key = \"#user + ':1h'\""));
        assertThatThrownBy(() -> LimitedBeans.start(redis, SameName.class).close())
                .isInstanceOf(BeanCreationException.class)
                .satisfies(ex -> assertThat(LimitedCalls.causeOfType(ex, InvalidRateLimitException.class))
                        .hasMessageContaining("SameName.call()")
                        .hasMessageContaining("name \"" + SameName.class.getName() + ".call\" is the same for")
                        .hasMessageContaining("Fix: give each @RateLimit of the method its own name, e.g. "
                                + "name = \"SameName.call-1h\""));
    }

    public static class Search {

        private final AtomicInteger runs = new AtomicInteger();

        int runs() {
            return runs.get();
        }

        @RateLimit(name = "search-burst", key = "'burst:' + #user", rate = 3, interval = 60)
        @RateLimit(name = "search-daily", key = "'daily:' + #user", rate = 1, interval = 1, unit = TimeUnit.DAYS)
        public String search(String user) {
            runs.incrementAndGet();
            return "results for " + user;
        }

        @RateLimit(name = "search-burst", key = "'burst:' + #user", rate = 3, interval = 60)
        public String burstOnly(String user) {
            runs.incrementAndGet();
            return "burst for " + user;
        }

        @RateLimit(name = "tight", key = "'tight:' + #user", rate = 2, interval = 60)
        @RateLimit(name = "loose", key = "'loose:' + #user", rate = 100, interval = 60)
        public String tightFirst(String user) {
            return user;
        }

        @HourlyAndMinute
        public String byMeta() {
            return "meta";
        }
    }

    @Retention(RetentionPolicy.RUNTIME)
    @RateLimits({
            @RateLimit(name = "meta-minute", rate = 5, interval = 60),
            @RateLimit(name = "meta-hour", rate = 1, interval = 1, unit = TimeUnit.HOURS) })
    public @interface HourlyAndMinute {
    }

    public static class SameKey {
        @RateLimit(key = "#user", rate = 5, interval = 1)
        @RateLimit(key = "#user", rate = 100, interval = 1, unit = TimeUnit.HOURS)
        public void call(String user) {
        }
    }

    public static class SameName {
        @RateLimit(rate = 5, interval = 1)
        @RateLimit(rate = 100, interval = 1, unit = TimeUnit.HOURS)
        public void call() {
        }
    }
}
