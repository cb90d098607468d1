package io.github.redissonratelimit.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.convert.ApplicationConversionService;

import io.github.redissonratelimit.autoconfigure.DefaultsProperties;
import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.operation.RateLimitOperation;

/** Pure logic: a gateway route's algorithm, burst, calendar period and zone, as its filter arguments bind them. */
class GatewayLimitTest {

    private static final DefaultsProperties NO_DEFAULTS = new DefaultsProperties();

    private static RedissonRouteRateLimiter.Config bind(Map<String, String> arguments) {
        return new Binder(java.util.List.of(new MapConfigurationPropertySource(arguments)), null,
                ApplicationConversionService.getSharedInstance())
                .bind("redisson-rate-limiter", Bindable.of(RedissonRouteRateLimiter.Config.class)).get();
    }

    @Test
    void filterArgumentsChooseTheAlgorithm() {
        RedissonRouteRateLimiter.Config bucket = bind(Map.of("redisson-rate-limiter.rate", "10",
                "redisson-rate-limiter.algorithm", "token-bucket", "redisson-rate-limiter.burst", "40",
                "redisson-rate-limiter.permits", "30", "redisson-rate-limiter.tiers.gold.burst", "400"));
        RateLimitOperation operation = GatewayLimit.operation(bucket, "search", NO_DEFAULTS);
        assertThat(operation.spec()).isEqualTo(new LimitSpec(10, Duration.ofSeconds(1), RateLimitMode.OVERALL,
                LimitAlgorithm.tokenBucket(40)));
        assertThat(operation.permits()).isEqualTo(30);
        assertThat(GatewayLimit.operation(bucket.forTier("gold"), "search", NO_DEFAULTS).spec().algorithm())
                .isEqualTo(LimitAlgorithm.tokenBucket(400));

        RedissonRouteRateLimiter.Config monthly = bind(Map.of("redisson-rate-limiter.rate", "1000",
                "redisson-rate-limiter.calendar", "month", "redisson-rate-limiter.zone", "Europe/Berlin"));
        assertThat(GatewayLimit.operation(monthly, "reports", NO_DEFAULTS).spec()).isEqualTo(new LimitSpec(1000,
                Duration.ofDays(31), RateLimitMode.OVERALL,
                LimitAlgorithm.fixedWindow(CalendarPeriod.MONTH, ZoneId.of("Europe/Berlin"))));

        assertThat(GatewayLimit.operation(new RedissonRouteRateLimiter.Config().setRate(5)
                .setAlgorithm(RateLimitAlgorithm.FIXED_WINDOW).setInterval(Duration.ofMinutes(1)), "r", NO_DEFAULTS).spec()
                .algorithm()).isEqualTo(LimitAlgorithm.fixedWindow());
        assertThat(GatewayLimit.operation(new RedissonRouteRateLimiter.Config().setRate(5), "r", NO_DEFAULTS).spec()
                .algorithm()).isEqualTo(LimitAlgorithm.SLIDING_WINDOW);
    }

    /** An in-flight limit: its interval is the lease period, 30 s unless set, at least 1 s. */
    @Test
    void filterArgumentsChooseAnInFlightLimit() {
        RedissonRouteRateLimiter.Config exports = bind(Map.of("redisson-rate-limiter.rate", "3",
                "redisson-rate-limiter.algorithm", "in-flight", "redisson-rate-limiter.tiers.gold.rate", "6"));
        assertThat(GatewayLimit.operation(exports, "exports", NO_DEFAULTS).spec()).isEqualTo(new LimitSpec(3,
                Duration.ofSeconds(30), RateLimitMode.OVERALL, LimitAlgorithm.IN_FLIGHT));
        assertThat(GatewayLimit.operation(exports.forTier("gold"), "exports", NO_DEFAULTS).spec()).isEqualTo(
                new LimitSpec(6, Duration.ofSeconds(30), RateLimitMode.OVERALL, LimitAlgorithm.IN_FLIGHT));
        assertThat(GatewayLimit.operation(exports.setInterval(Duration.ofSeconds(10)), "exports", NO_DEFAULTS).spec()
                .interval()).isEqualTo(Duration.ofSeconds(10));
        assertRefused(new RedissonRouteRateLimiter.Config().setRate(3).setAlgorithm(RateLimitAlgorithm.IN_FLIGHT)
                .setInterval(Duration.ofMillis(500)), "redisson-rate-limiter.interval is the lease period of algorithm"
                        + "=IN_FLIGHT and must be at least PT1S but was PT0.5S");
    }

    /** One resolution for every limit: a route that sets no algorithm takes {@code ratelimit.defaults}' as routes do. */
    @Test
    void aRouteWithoutAnAlgorithmTakesTheDefaults() {
        DefaultsProperties defaults = new DefaultsProperties();
        defaults.setAlgorithm(RateLimitAlgorithm.TOKEN_BUCKET);
        defaults.setZone(ZoneId.of("Asia/Tokyo"));
        assertThat(GatewayLimit.operation(new RedissonRouteRateLimiter.Config().setRate(5), "r", defaults).spec()
                .algorithm()).isEqualTo(LimitAlgorithm.tokenBucket(5));
        assertThat(GatewayLimit.operation(new RedissonRouteRateLimiter.Config().setRate(5)
                .setCalendar(CalendarPeriod.DAY), "r", defaults).spec().algorithm())
                .as("a calendar period implies the fixed window, in the default zone")
                .isEqualTo(LimitAlgorithm.fixedWindow(CalendarPeriod.DAY, ZoneId.of("Asia/Tokyo")));
        assertThat(GatewayLimit.operation(new RedissonRouteRateLimiter.Config().setRate(5)
                .setAlgorithm(RateLimitAlgorithm.SLIDING_WINDOW), "r", defaults).spec().algorithm())
                .isEqualTo(LimitAlgorithm.SLIDING_WINDOW);
    }

    /** A lease, as {@code @RateLimit(lease)}: carried by the route's limit and its tiers', under the same rule. */
    @Test
    void filterArgumentsLeaseTheRoutesPermits() {
        RedissonRouteRateLimiter.Config leased = bind(Map.of("redisson-rate-limiter.rate", "1000",
                "redisson-rate-limiter.interval", "1m", "redisson-rate-limiter.lease", "200ms",
                "redisson-rate-limiter.tier", "'gold'", "redisson-rate-limiter.tiers.gold.rate", "5000"));
        assertThat(GatewayLimit.operation(leased, "search", NO_DEFAULTS).lease()).isEqualTo(Duration.ofMillis(200));
        assertThat(GatewayLimit.operation(leased.forTier("gold"), "search", NO_DEFAULTS).lease())
                .isEqualTo(Duration.ofMillis(200));
        assertThat(GatewayLimit.operation(new RedissonRouteRateLimiter.Config().setRate(5), "r", NO_DEFAULTS).lease())
                .isZero();
        assertRefused(new RedissonRouteRateLimiter.Config().setRate(5).setLease(Duration.ofMillis(200)),
                "redisson-rate-limiter.lease must be at least 1ms and at most a tenth of the interval (PT0.1S) but "
                        + "was PT0.2S");
        assertRefused(new RedissonRouteRateLimiter.Config().setRate(5).setAlgorithm(RateLimitAlgorithm.IN_FLIGHT)
                .setLease(Duration.ofMillis(10)), "redisson-rate-limiter.lease (PT0.01S) is set on");
    }

    @Test
    void argumentsThatCannotWorkAreRefusedNamingTheArgument() {
        assertRefused(new RedissonRouteRateLimiter.Config().setRate(5).setBurst(10),
                "redisson-rate-limiter.burst (10) is set, but algorithm is SLIDING_WINDOW: only a token bucket has a burst");
        assertRefused(new RedissonRouteRateLimiter.Config().setRate(5).setCalendar(CalendarPeriod.DAY)
                .setAlgorithm(RateLimitAlgorithm.TOKEN_BUCKET), "redisson-rate-limiter.calendar (DAY) is set, but algorithm "
                        + "is TOKEN_BUCKET: only a fixed window follows the calendar");
        assertRefused(new RedissonRouteRateLimiter.Config().setRate(5).setCalendar(CalendarPeriod.DAY)
                .setInterval(Duration.ofHours(1)), "redisson-rate-limiter.interval (PT1H) is set together with calendar, but a quota per DAY");
        assertRefused(new RedissonRouteRateLimiter.Config().setRate(5).setZone(ZoneId.of("UTC")),
                "redisson-rate-limiter.zone (UTC) is set, but the limit is not a calendar quota: only a calendar quota has a zone");
        assertRefused(new RedissonRouteRateLimiter.Config().setRate(10).setAlgorithm(RateLimitAlgorithm.TOKEN_BUCKET)
                .setBurst(2).setPermits(3), "redisson-rate-limiter.permits must be from 1 to the burst (2) but was 3");
        assertRefused(new RedissonRouteRateLimiter.Config().setRate(2).setPermits(3),
                "redisson-rate-limiter.permits must be from 1 to the rate (2) but was 3");
        assertRefused(new RedissonRouteRateLimiter.Config(), "redisson-rate-limiter.rate must be at least 1 but was 0");
        RedissonRouteRateLimiter.Config daily = new RedissonRouteRateLimiter.Config().setRate(5)
                .setCalendar(CalendarPeriod.DAY).setTier("'gold'")
                .setTiers(Map.of("gold", new RedissonRouteRateLimiter.Config().setInterval(Duration.ofHours(1))));
        assertRefused(daily.forTier("gold"), "redisson-rate-limiter.interval (PT1H) is set together with calendar, but a quota per DAY");
    }

    private static void assertRefused(RedissonRouteRateLimiter.Config config, String message) {
        assertThatThrownBy(() -> GatewayLimit.operation(config, "route-1", NO_DEFAULTS)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Route 'route-1': ").hasMessageContaining(message);
    }
}
