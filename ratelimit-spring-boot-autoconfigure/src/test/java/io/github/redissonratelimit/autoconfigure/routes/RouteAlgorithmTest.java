package io.github.redissonratelimit.autoconfigure.routes;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.ZoneId;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.autoconfigure.NoRedis;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.operation.RateLimitOperationSource;

/** A route's algorithm, burst, calendar period and zone, from its own properties, its policy or the defaults. */
class RouteAlgorithmTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                    RateLimitRoutesAutoConfiguration.class))
            .withBean(RedissonClient.class, NoRedis::redissonClient)
            .withPropertyValues("ratelimit.routes.api.paths=/api/**", "ratelimit.routes.api.rate=10");

    private void assertRoute(String[] properties, java.util.function.Consumer<RateLimitOperation> assertion) {
        runner.withPropertyValues(properties).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(RateLimitOperationSource.class).declaredLimits().named("api")).first()
                    .satisfies(assertion::accept);
        });
    }

    private void assertFails(String property, String message, String... values) {
        runner.withPropertyValues(values).run(context -> assertThat(context).hasFailed().getFailure()
                .rootCause().isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining(property).hasMessageContaining(message));
    }

    @Test
    void aRouteChoosesItsAlgorithmAndItsTiersTheirBurst() {
        assertRoute(new String[] { "ratelimit.routes.api.algorithm=token-bucket", "ratelimit.routes.api.burst=40",
                "ratelimit.routes.api.permits=25", "ratelimit.routes.api.tier=header['X-Plan']",
                "ratelimit.routes.api.tiers.gold.burst=400" }, operation -> {
                    assertThat(operation.spec().algorithm()).isEqualTo(LimitAlgorithm.tokenBucket(40));
                    assertThat(operation.permits()).isEqualTo(25);
                });
        runner.withPropertyValues("ratelimit.routes.api.algorithm=token-bucket", "ratelimit.routes.api.tier=header['X']",
                "ratelimit.routes.api.tiers.gold.burst=400").run(context -> assertThat(context.getBean(RouteTable.class)
                        .operations()).extracting(operation -> operation.spec().algorithm())
                        .containsExactly(LimitAlgorithm.tokenBucket(10), LimitAlgorithm.tokenBucket(400)));
        assertRoute(new String[] { "ratelimit.defaults.algorithm=fixed-window" },
                operation -> assertThat(operation.spec().algorithm()).isEqualTo(LimitAlgorithm.fixedWindow()));
    }

    @Test
    void aRouteCanBeACalendarQuotaInAZone() {
        assertRoute(new String[] { "ratelimit.routes.api.calendar=day", "ratelimit.defaults.zone=Asia/Tokyo" },
                operation -> {
                    assertThat(operation.spec().algorithm()).isEqualTo(LimitAlgorithm.fixedWindow(CalendarPeriod.DAY,
                            ZoneId.of("Asia/Tokyo")));
                    assertThat(operation.spec().interval()).isEqualTo(Duration.ofDays(1));
                });
        assertRoute(new String[] { "ratelimit.policies.monthly.calendar=month",
                "ratelimit.policies.monthly.zone=Europe/Berlin", "ratelimit.routes.api.policy=monthly" },
                operation -> assertThat(operation.spec().algorithm()).isEqualTo(LimitAlgorithm.fixedWindow(
                        CalendarPeriod.MONTH, ZoneId.of("Europe/Berlin"))));
        assertRoute(new String[] { "ratelimit.policies.monthly.calendar=month", "ratelimit.routes.api.policy=monthly",
                "ratelimit.routes.api.interval=1m" }, operation -> assertThat(operation.spec().interval())
                        .as("the route's interval replaces its policy's period").isEqualTo(Duration.ofMinutes(1)));
    }

    /**
     * An in-flight route's interval is its lease period: 30 s unless the route (or its policy) sets one, not the
     * default interval of rate limits; its tiers hold theirs for the route's lease period unless they set their own.
     */
    @Test
    void aRouteCanBeLimitedInFlight() {
        assertRoute(new String[] { "ratelimit.routes.api.algorithm=in-flight", "ratelimit.defaults.interval=1m" },
                operation -> {
                    assertThat(operation.spec().algorithm()).isEqualTo(LimitAlgorithm.IN_FLIGHT);
                    assertThat(operation.spec().interval()).isEqualTo(Duration.ofSeconds(30));
                });
        runner.withPropertyValues("ratelimit.routes.api.algorithm=in-flight", "ratelimit.routes.api.interval=10s",
                "ratelimit.defaults.interval=1m", "ratelimit.routes.api.tier=header['X']",
                "ratelimit.routes.api.tiers.gold.rate=20", "ratelimit.routes.api.tiers.long.interval=2m")
                .run(context -> assertThat(context.getBean(RouteTable.class).operations())
                        .extracting(operation -> operation.spec().interval()).as("the route, gold and long")
                        .containsExactlyInAnyOrder(Duration.ofSeconds(10), Duration.ofSeconds(10),
                                Duration.ofMinutes(2)));
        runner.withPropertyValues("ratelimit.routes.api.algorithm=in-flight", "ratelimit.routes.api.interval=500ms")
                .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining(
                        "ratelimit.routes.api.interval is the lease period of ratelimit.routes.api.algorithm=IN_FLIGHT "
                                + "and must be at least PT1S"));
    }

    /**
     * A route's lease, or its policy's, is its limit's and its tiers', under {@code @RateLimit(lease)}'s rule: any
     * algorithm but in-flight, from 1ms to a tenth of the interval; none unless set.
     */
    @Test
    void aRouteLeasesItsPermitsUnderTheAnnotationsRule() {
        assertRoute(new String[] { "ratelimit.routes.api.interval=1m", "ratelimit.routes.api.lease=200ms" },
                operation -> assertThat(operation.lease()).isEqualTo(Duration.ofMillis(200)));
        assertRoute(new String[0], operation -> assertThat(operation.lease()).isZero());
        assertRoute(new String[] { "ratelimit.routes.api.interval=1m", "ratelimit.routes.api.algorithm=token-bucket",
                "ratelimit.routes.api.lease=200ms" }, operation -> assertThat(operation.lease())
                        .isEqualTo(Duration.ofMillis(200)));
        runner.withPropertyValues("ratelimit.policies.hot.lease=2s", "ratelimit.policies.hot.interval=1m",
                "ratelimit.routes.api.policy=hot", "ratelimit.routes.api.tier=header['X']",
                "ratelimit.routes.api.tiers.gold.rate=100").run(context -> assertThat(context.getBean(RouteTable.class)
                        .operations()).extracting(RateLimitOperation::lease)
                        .containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(2)));
        assertFails("ratelimit.routes.api.lease", "at most a tenth of the interval (PT6S)",
                "ratelimit.routes.api.interval=1m", "ratelimit.routes.api.lease=7s");
        assertFails("ratelimit.routes.api.lease", "at least 1ms", "ratelimit.routes.api.lease=500us");
        assertFails("ratelimit.routes.api.lease", "cannot be leased", "ratelimit.routes.api.algorithm=in-flight",
                "ratelimit.routes.api.lease=10ms");
        assertFails("ratelimit.routes.api.lease", "at most a tenth of the interval (PT0.1S)",
                "ratelimit.routes.api.interval=1m", "ratelimit.routes.api.lease=2s",
                "ratelimit.routes.api.tier=header['X']", "ratelimit.routes.api.tiers.gold.interval=1s");
    }

    @Test
    void algorithmValuesThatCannotWorkFailStartupNamingTheProperty() {
        assertFails("ratelimit.routes.api.burst", "only a token bucket has a burst", "ratelimit.routes.api.burst=5");
        assertFails("ratelimit.routes.api.calendar", "only a fixed window follows the calendar",
                "ratelimit.policies.daily.calendar=day", "ratelimit.routes.api.policy=daily",
                "ratelimit.routes.api.algorithm=sliding-window");
        assertFails("ratelimit.routes.api.zone", "only a calendar quota has a zone",
                "ratelimit.routes.api.zone=Europe/Berlin");
        assertFails("ratelimit.routes.api.tiers.gold.interval", "quota per DAY",
                "ratelimit.routes.api.calendar=day", "ratelimit.routes.api.tier=header['X']",
                "ratelimit.routes.api.tiers.gold.interval=1h");
        assertFails("ratelimit.routes.api.tiers.gold.permits", "more than the burst 2",
                "ratelimit.routes.api.algorithm=token-bucket", "ratelimit.routes.api.burst=2",
                "ratelimit.routes.api.tier=header['X']", "ratelimit.routes.api.tiers.gold.permits=3");
        runner.withPropertyValues("ratelimit.routes.api.calendar=day", "ratelimit.routes.api.interval=1h")
                .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining(
                        "ratelimit.routes.api.interval (PT1H) is set together with ratelimit.routes.api.calendar"));
        runner.withPropertyValues("ratelimit.routes.api.calendar=day", "ratelimit.routes.api.algorithm=token-bucket")
                .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining(
                        "ratelimit.routes.api.calendar (DAY) is set, but ratelimit.routes.api.algorithm is TOKEN_BUCKET"));
    }
}
