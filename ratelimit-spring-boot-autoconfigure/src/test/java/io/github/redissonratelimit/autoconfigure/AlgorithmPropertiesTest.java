package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.ZoneId;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.operation.RateLimitOperationSource;

/**
 * {@code ratelimit.policies.<name>.algorithm}, {@code burst}, {@code calendar}, {@code zone}, their tiers and
 * {@code ratelimit.defaults.algorithm} / {@code zone}: bound, resolved over the annotation, and checked at startup
 * naming the property; no Redis.
 */
class AlgorithmPropertiesTest {

    public static class Api {
        @RateLimit(name = "search", key = "#user", rate = 10, interval = 1)
        public void search(String user, String plan) {
        }

        @RateLimit(name = "export", rate = 1000, calendar = CalendarPeriod.DAY)
        public void export() {
        }

        @RateLimit(rate = 5, interval = 60)
        public void plain() {
        }

        @RateLimit(name = "bulk", rate = 5, permits = 3)
        public void bulk() {
        }
    }

    public static class TieredApi {
        @RateLimit(name = "search", key = "#user", rate = 10, interval = 1, tier = "#plan")
        public void search(String user, String plan) {
        }
    }

    public static class BurstOnSlidingWindow {
        @RateLimit(rate = 5, burst = 10)
        public void call() {
        }
    }

    public static class CalendarWithInterval {
        @RateLimit(rate = 5, interval = 60, calendar = CalendarPeriod.MONTH)
        public void call() {
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, AopAutoConfiguration.class))
            .withBean(RedissonClient.class, NoRedis::redissonClient);

    private static LimitSpec spec(ApplicationContext context, String method) throws NoSuchMethodException {
        return operation(context, method).spec();
    }

    private static RateLimitOperation operation(ApplicationContext context, String method)
            throws NoSuchMethodException {
        return operation(context, Api.class, method);
    }

    private static RateLimitOperation operation(ApplicationContext context, Class<?> type, String method)
            throws NoSuchMethodException {
        Class<?>[] parameters = method.equals("search") ? new Class<?>[] { String.class, String.class }
                : new Class<?>[0];
        return context.getBean(RateLimitOperationSource.class).getOperations(type.getMethod(method, parameters),
                type).get(0);
    }

    @Test
    void aPolicyChoosesTheAlgorithmAndItsTiersTheirBurst() {
        runner.withBean(TieredApi.class).withPropertyValues("ratelimit.policies.search.algorithm=token-bucket",
                "ratelimit.policies.search.burst=30", "ratelimit.policies.search.permits=20",
                "ratelimit.policies.search.tiers.gold.rate=100", "ratelimit.policies.search.tiers.gold.burst=500",
                "ratelimit.policies.search.tiers.silver.rate=50").run(context -> {
                    assertThat(context).hasNotFailed();
                    RateLimitOperation search = operation(context, TieredApi.class, "search");
                    assertThat(search.spec().algorithm()).isEqualTo(LimitAlgorithm.tokenBucket(30));
                    assertThat(search.permits()).as("permits above the rate, within the burst").isEqualTo(20);
                    assertThat(search.tiers().operations().get("gold").spec().algorithm())
                            .isEqualTo(LimitAlgorithm.tokenBucket(500));
                    assertThat(search.tiers().operations().get("silver").spec().algorithm())
                            .as("the policy's burst").isEqualTo(LimitAlgorithm.tokenBucket(30));
                });
    }

    @Test
    void aPolicyMakesACalendarQuotaInItsZoneAndTheDefaultsZoneServesTheOthers() {
        runner.withBean(Api.class).withPropertyValues("ratelimit.policies.search.calendar=month",
                "ratelimit.policies.search.zone=Europe/Berlin", "ratelimit.defaults.zone=America/New_York")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(spec(context, "search")).isEqualTo(new LimitSpec(10, Duration.ofDays(31),
                            io.github.redissonratelimit.annotation.RateLimitMode.OVERALL,
                            LimitAlgorithm.fixedWindow(CalendarPeriod.MONTH, ZoneId.of("Europe/Berlin"))));
                    assertThat(spec(context, "export").algorithm()).isEqualTo(LimitAlgorithm.fixedWindow(
                            CalendarPeriod.DAY, ZoneId.of("America/New_York")));
                    assertThat(spec(context, "plain").algorithm()).isEqualTo(LimitAlgorithm.SLIDING_WINDOW);
                });
    }

    @Test
    void theDefaultsAlgorithmServesTheLimitsThatChooseNone() {
        runner.withBean(Api.class).withPropertyValues("ratelimit.defaults.algorithm=fixed-window",
                "ratelimit.policies.search.algorithm=sliding-window").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(spec(context, "plain").algorithm()).isEqualTo(LimitAlgorithm.fixedWindow());
                    assertThat(spec(context, "search").algorithm()).isEqualTo(LimitAlgorithm.SLIDING_WINDOW);
                    assertThat(spec(context, "export").algorithm()).isEqualTo(LimitAlgorithm.fixedWindow(CalendarPeriod.DAY,
                            CalendarPeriod.DEFAULT_ZONE));
                });
        runner.withPropertyValues("ratelimit.defaults.algorithm=default").run(context -> assertThat(context)
                .hasFailed().getFailure().hasStackTraceContaining("ratelimit.defaults.algorithm must be "
                        + "'sliding-window', 'token-bucket' or 'fixed-window' (or unset for 'sliding-window')"));
    }

    @Test
    void policyValuesThatCannotWorkTogetherFailWhenBoundNamingTheProperty() {
        runner.withPropertyValues("ratelimit.policies.a.algorithm=sliding-window", "ratelimit.policies.a.burst=5",
                "ratelimit.policies.b.calendar=day", "ratelimit.policies.b.algorithm=token-bucket",
                "ratelimit.policies.c.calendar=week", "ratelimit.policies.c.interval=1h",
                "ratelimit.policies.d.calendar=none", "ratelimit.policies.d.zone=UTC",
                "ratelimit.policies.e.burst=0", "ratelimit.policies.f.tiers.gold.burst=2",
                "ratelimit.policies.f.tiers.gold.permits=3").run(context -> assertThat(context).hasFailed()
                        .getFailure().hasStackTraceContaining("ratelimit.policies.a.burst (5) is set, but "
                                + "ratelimit.policies.a.algorithm is SLIDING_WINDOW: only a token bucket has a burst")
                        .hasStackTraceContaining("ratelimit.policies.b.calendar (DAY) is set, but "
                                + "ratelimit.policies.b.algorithm is TOKEN_BUCKET: only a fixed window follows the calendar")
                        .hasStackTraceContaining("ratelimit.policies.c.interval (PT1H) is set together with "
                                + "ratelimit.policies.c.calendar")
                        .hasStackTraceContaining("ratelimit.policies.d.zone (UTC) is set, but the limit is not a calendar quota")
                        .hasStackTraceContaining("ratelimit.policies.e.burst must be greater than 0 but was 0")
                        .hasStackTraceContaining("ratelimit.policies.f.tiers.gold.permits (3) must not exceed "
                                + "ratelimit.policies.f.tiers.gold.burst (2)"));
    }

    @Test
    void policyValuesThatDoNotFitTheAnnotationFailAtStartupNamingTheProperty() {
        runner.withBean(Api.class).withPropertyValues("ratelimit.policies.export.algorithm=token-bucket")
                .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining(
                        "Api.export(): calendar (DAY) is set, but ratelimit.policies.export.algorithm is TOKEN_BUCKET"));
        runner.withBean(Api.class).withPropertyValues("ratelimit.policies.search.burst=5").run(context -> assertThat(
                context).hasFailed().getFailure().hasStackTraceContaining("ratelimit.policies.search.burst (5) is set, "
                        + "but algorithm is SLIDING_WINDOW: only a token bucket has a burst"));
        runner.withBean(Api.class).withPropertyValues("ratelimit.policies.search.zone=Europe/Paris").run(context ->
                assertThat(context).hasFailed().getFailure().hasStackTraceContaining(
                        "ratelimit.policies.search.zone (Europe/Paris) is set, but the limit is not a calendar quota"));
        runner.withBean(Api.class).withPropertyValues("ratelimit.policies.bulk.algorithm=token-bucket",
                "ratelimit.policies.bulk.burst=2").run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("Api.bulk(): permits (3) exceeds ratelimit.policies.bulk.burst (2), "
                                + "so no call could ever be allowed. Fix: lower permits or raise "
                                + "ratelimit.policies.bulk.burst"));
    }

    @Test
    void annotationsThatCannotWorkFailAtStartupNamingTheAttribute() {
        runner.withBean(BurstOnSlidingWindow.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("BurstOnSlidingWindow.call(): burst (10) is set, but algorithm is "
                        + "SLIDING_WINDOW: only a token bucket has a burst. Fix: set algorithm to TOKEN_BUCKET"));
        runner.withBean(CalendarWithInterval.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("CalendarWithInterval.call(): calendar (MONTH) is set together with interval"));
    }
}
