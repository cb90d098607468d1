package io.github.redissonratelimit.autoconfigure.routes;

import java.time.Duration;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.autoconfigure.DefaultsProperties;
import io.github.redissonratelimit.autoconfigure.LimitProperties;
import io.github.redissonratelimit.autoconfigure.RouteProperties;
import io.github.redissonratelimit.autoconfigure.TierProperties;
import io.github.redissonratelimit.algorithm.AlgorithmSettingException;
import io.github.redissonratelimit.algorithm.Algorithms;
import io.github.redissonratelimit.algorithm.Setting;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.operation.CallerKey;
import io.github.redissonratelimit.operation.RateLimitOperation;

/**
 * The limit of one route, or of one of its tiers, from its properties over the defaults: a value that cannot work
 * fails startup naming its property. A route's algorithm, calendar period, zone and lease hold for its tiers too
 * (they share the key's limiter); a tier may change rate, interval, mode, permits and burst.
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
        RateLimitMode mode = values.getMode() != null && values.getMode() != RateLimitMode.DEFAULT ? values.getMode()
                : fallback.getMode() != null && fallback.getMode() != RateLimitMode.DEFAULT ? fallback.getMode()
                : RateLimitMode.OVERALL;
        Algorithms.Resolved window = window(name, prefix, route, values, fallback, defaults, rate);
        Long permits = values.getPermits() != null ? values.getPermits() : fallback.getPermits();
        if (permits != null && route.getCost() != null && values.getPermits() != null) {
            throw new InvalidConfigurationPropertyValueException(prefix + "permits", permits,
                    "set together with cost: use either a fixed permits or a cost expression");
        }
        LimitSpec spec = new LimitSpec(rate, window.interval().value(), mode, window.algorithm());
        long taken = permits == null ? 1 : permits;
        if (taken > spec.capacity()) {
            throw new InvalidConfigurationPropertyValueException(prefix + "permits", taken, "more than the "
                    + spec.capacityName() + " " + spec.capacity()
                    + ": no request could ever pass");
        }
        BackendErrorPolicy onBackendError = route.getOnBackendError() == null ? BackendErrorPolicy.DEFAULT
                : route.getOnBackendError();
        return RateLimitOperation.builder(description, name, spec).permits(taken)
                .message(route.getMessage() == null ? "Too many requests" : route.getMessage())
                .source("ratelimit.routes." + name).displayName(name).backendErrorPolicy(onBackendError)
                .shadow(Boolean.TRUE.equals(route.getShadow())).policyName(policy).callerKey(callerKey(name, route))
                .lease(lease(name, route, spec)).build();
    }

    /**
     * The route's lease period, carried by its requests as {@code @RateLimit(lease)}'s are, under the same rule
     * ({@link LimitSpec#leaseRefusal}).
     */
    private static Duration lease(String name, RouteProperties route, LimitSpec spec) {
        Duration lease = route.getLease();
        if (lease == null || lease.isZero()) {
            return Duration.ZERO;
        }
        String property = "ratelimit.routes." + name + ".lease";
        LimitSpec.LeaseRefusal refusal = spec.leaseRefusal(lease, property);
        if (refusal != null) {
            throw new InvalidConfigurationPropertyValueException(property, lease, refusal.problem() + "; "
                    + refusal.fix());
        }
        return lease;
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

    /**
     * The route's window and algorithm, by the one resolution every limit has: a tier's interval and burst over the
     * route's, the route's algorithm, calendar period and zone over the defaults'.
     */
    private static Algorithms.Resolved window(String name, String prefix, RouteProperties route,
            LimitProperties values, LimitProperties fallback, DefaultsProperties defaults, long rate) {
        String routePrefix = "ratelimit.routes." + name + ".";
        Long burst = values instanceof TierProperties tier && tier.getBurst() != null ? tier.getBurst()
                : route.getBurst();
        String burstOrigin = (values instanceof TierProperties tier && tier.getBurst() != null ? prefix : routePrefix)
                + "burst";
        RateLimitAlgorithm algorithm = route.getAlgorithm() == RateLimitAlgorithm.DEFAULT ? null : route.getAlgorithm();
        // a tier's unset interval is the route's own, as set: an in-flight limit's lease period has no default from
        // ratelimit.defaults.interval, which would otherwise be all a tier sees of it
        Setting<Duration> interval = values.getInterval() != null ? new Setting<>(values.getInterval(),
                prefix + "interval") : Setting.of(route.getInterval(), routePrefix + "interval");
        try {
            return Algorithms.resolve(new Algorithms.Choice(new Setting<>(rate, prefix + "rate"), interval,
                    Setting.of(fallback.getInterval(), fallback == defaults ? "ratelimit.defaults.interval"
                            : routePrefix + "interval"),
                    Setting.of(algorithm, routePrefix + "algorithm"), routePrefix + "algorithm",
                    Setting.of(defaults.getAlgorithm() == RateLimitAlgorithm.DEFAULT ? null : defaults.getAlgorithm(),
                            "ratelimit.defaults.algorithm"),
                    Setting.of(burst, burstOrigin), Setting.of(route.getCalendar(), routePrefix + "calendar"),
                    Setting.of(route.getZone(), routePrefix + "zone"), defaults.getZone()));
        }
        catch (AlgorithmSettingException ex) {
            throw new InvalidConfigurationPropertyValueException(ex.getOrigin(), null, ex.getProblem() + "; "
                    + ex.getFix());
        }
    }
}
