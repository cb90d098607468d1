package io.github.redissonratelimit.autoconfigure.routes;

import java.time.Duration;
import java.time.ZoneId;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.autoconfigure.DefaultsProperties;
import io.github.redissonratelimit.autoconfigure.LimitProperties;
import io.github.redissonratelimit.autoconfigure.RouteProperties;
import io.github.redissonratelimit.autoconfigure.TierProperties;
import io.github.redissonratelimit.limiter.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.operation.CallerKey;
import io.github.redissonratelimit.operation.RateLimitOperation;

/**
 * The limit of one route, or of one of its tiers, from its properties over the defaults: a value that cannot work
 * fails startup naming its property. A route's algorithm, calendar period and zone hold for its tiers too (they
 * share the key's limiter); a tier may change rate, interval, mode, permits and burst.
 */
final class RouteLimits {

    private RouteLimits() {
    }

    /**
     * @param prefix the properties of the values, e.g. {@code ratelimit.routes.api.} or
     *        {@code ratelimit.routes.api.tiers.gold.}
     * @param values the route's values, or a tier's
     * @param fallback what the values fall back to: the defaults for a route, the route over the defaults for a tier
     */
    static RateLimitOperation operation(String name, String description, String prefix, RouteProperties route,
            LimitProperties values, LimitProperties fallback, DefaultsProperties defaults, String policy) {
        Long rate = values.getRate() != null ? values.getRate() : fallback.getRate();
        if (rate == null) {
            throw new InvalidConfigurationPropertyValueException(prefix + "rate", null,
                    "a route needs a rate (or ratelimit.defaults.rate); set e.g. " + prefix + "rate=100");
        }
        CalendarPeriod calendar = route.getCalendar() == null ? CalendarPeriod.NONE : route.getCalendar();
        Duration interval = interval(prefix, values, fallback, calendar);
        RateLimitMode mode = values.getMode() != null && values.getMode() != RateLimitMode.DEFAULT ? values.getMode()
                : fallback.getMode() != null && fallback.getMode() != RateLimitMode.DEFAULT ? fallback.getMode()
                : RateLimitMode.OVERALL;
        LimitAlgorithm algorithm = algorithm(name, prefix, route, values, defaults, calendar, rate);
        Long permits = values.getPermits() != null ? values.getPermits() : fallback.getPermits();
        if (permits != null && route.getCost() != null && values.getPermits() != null) {
            throw new InvalidConfigurationPropertyValueException(prefix + "permits", permits,
                    "set together with cost: use either a fixed permits or a cost expression");
        }
        LimitSpec spec = new LimitSpec(rate, interval, mode, algorithm);
        long taken = permits == null ? 1 : permits;
        if (taken > spec.capacity()) {
            throw new InvalidConfigurationPropertyValueException(prefix + "permits", taken, "more than the "
                    + (algorithm.type() == RateLimitAlgorithm.TOKEN_BUCKET ? "burst " : "rate ") + spec.capacity()
                    + ": no request could ever pass");
        }
        BackendErrorPolicy onBackendError = route.getOnBackendError() == null ? BackendErrorPolicy.DEFAULT
                : route.getOnBackendError();
        return RateLimitOperation.builder(description, name, spec).permits(taken)
                .message(route.getMessage() == null ? "Too many requests" : route.getMessage())
                .source("ratelimit.routes." + name).displayName(name).backendErrorPolicy(onBackendError)
                .shadow(Boolean.TRUE.equals(route.getShadow())).policyName(policy).callerKey(callerKey(name, route))
                .build();
    }

    /** How the route's callers are told apart by the actuator and {@code RateLimiters}; null without a key. */
    private static CallerKey callerKey(String name, RouteProperties route) {
        return route.getKey() == null || route.getKey().isBlank() ? null
                : new CallerKey(route.getKey(), route.getKeyScope().keyPrefix(name));
    }

    /** The route's own values over the defaults: what a tier falls back to. */
    static LimitProperties merged(RouteProperties route, LimitProperties defaults) {
        LimitProperties merged = new LimitProperties();
        merged.setRate(route.getRate() != null ? route.getRate() : defaults.getRate());
        merged.setInterval(route.getInterval() != null ? route.getInterval() : defaults.getInterval());
        merged.setMode(route.getMode() != null ? route.getMode() : defaults.getMode());
        merged.setPermits(route.getPermits() != null ? route.getPermits() : defaults.getPermits());
        return merged;
    }

    /** A calendar quota's interval is its period's longest; any other's the values', the fallback's, else 1s. */
    private static Duration interval(String prefix, LimitProperties values, LimitProperties fallback,
            CalendarPeriod calendar) {
        if (calendar == CalendarPeriod.NONE) {
            return values.getInterval() != null ? values.getInterval()
                    : fallback.getInterval() != null ? fallback.getInterval() : Duration.ofSeconds(1);
        }
        if (values.getInterval() != null) {
            throw new InvalidConfigurationPropertyValueException(prefix + "interval", values.getInterval(),
                    "the route is a quota per " + calendar + " (its calendar), whose window is the period: remove "
                            + prefix + "interval");
        }
        return calendar.longest();
    }

    private static LimitAlgorithm algorithm(String name, String prefix, RouteProperties route,
            LimitProperties values, DefaultsProperties defaults, CalendarPeriod calendar, long rate) {
        String routePrefix = "ratelimit.routes." + name + ".";
        RateLimitAlgorithm type = route.getAlgorithm() != null && route.getAlgorithm() != RateLimitAlgorithm.DEFAULT
                ? route.getAlgorithm()
                : calendar != CalendarPeriod.NONE ? RateLimitAlgorithm.FIXED_WINDOW
                : defaults.getAlgorithm() != null ? defaults.getAlgorithm() : RateLimitAlgorithm.SLIDING_WINDOW;
        if (calendar != CalendarPeriod.NONE && type != RateLimitAlgorithm.FIXED_WINDOW) {
            throw new InvalidConfigurationPropertyValueException(routePrefix + "calendar", calendar,
                    "only a fixed window follows the calendar, but " + routePrefix + "algorithm is " + type
                            + ": set it to fixed-window (or leave it unset), or remove the calendar");
        }
        Long burst = values instanceof TierProperties tier && tier.getBurst() != null ? tier.getBurst()
                : route.getBurst();
        if (burst != null && type != RateLimitAlgorithm.TOKEN_BUCKET) {
            throw new InvalidConfigurationPropertyValueException(prefix + "burst", burst, "only a token bucket has "
                    + "a burst, but the route's algorithm is " + type + ": set " + routePrefix
                    + "algorithm=token-bucket, or remove the burst");
        }
        if (route.getZone() != null && calendar == CalendarPeriod.NONE) {
            throw new InvalidConfigurationPropertyValueException(routePrefix + "zone", route.getZone(),
                    "only a calendar quota has a zone: set " + routePrefix + "calendar too, or remove the zone");
        }
        ZoneId zone = route.getZone() != null ? route.getZone()
                : defaults.getZone() != null ? defaults.getZone() : CalendarPeriod.DEFAULT_ZONE;
        return switch (type) {
            case TOKEN_BUCKET -> LimitAlgorithm.tokenBucket(burst != null ? burst : rate);
            case FIXED_WINDOW -> calendar == CalendarPeriod.NONE ? LimitAlgorithm.fixedWindow()
                    : LimitAlgorithm.fixedWindow(calendar, zone);
            default -> LimitAlgorithm.SLIDING_WINDOW;
        };
    }
}
