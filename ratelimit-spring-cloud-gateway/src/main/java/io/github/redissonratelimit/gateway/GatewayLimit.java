package io.github.redissonratelimit.gateway;

import java.time.Duration;
import java.util.Set;

import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.operation.CallerKey;
import io.github.redissonratelimit.operation.RateLimitOperation;

/**
 * The limit of one gateway route from its {@link RedissonRouteRateLimiter.Config}: rate, interval (or calendar
 * period), mode, permits and the algorithm. A configuration that cannot work is refused naming its argument.
 */
final class GatewayLimit {

    private static final String PREFIX = RedissonRouteRateLimiter.CONFIGURATION_PROPERTY_NAME + ".";

    private GatewayLimit() {
    }

    /** @throws IllegalArgumentException naming the route and the argument at fault */
    static RateLimitOperation operation(RedissonRouteRateLimiter.Config config, String routeId) {
        String limitName = RedissonRouteRateLimiter.limitName(config, routeId);
        LimitSpec spec = spec(config, routeId);
        long taken = config.getPermits() == 0 ? 1 : config.getPermits();
        if (taken < 1 || taken > spec.capacity()) {
            throw refused(routeId, "permits", "must be from 1 to the " + (spec.capacity() == spec.rate() ? "rate"
                    : "burst") + " (" + spec.capacity() + ") but was " + taken, config);
        }
        return RateLimitOperation.builder("gateway route '" + routeId + "'", limitName, spec).permits(taken)
                .displayName(limitName).source("gateway route " + routeId)
                .backendErrorPolicy(config.getOnBackendError()).shadow(config.isShadow())
                .callerKey(new CallerKey("the KeyResolver of route '" + routeId + "'",
                        config.getKeyScope().keyPrefix(limitName)))
                .build();
    }

    /**
     * The limit {@code config} with the values its tier sets ({@code values}), each unset one the limit's own; the
     * algorithm, calendar period and zone are always the limit's: the tiers share the key's limiter.
     */
    static RedissonRouteRateLimiter.Config forTier(RedissonRouteRateLimiter.Config config,
            RedissonRouteRateLimiter.Config values) {
        return new RedissonRouteRateLimiter.Config().setName(config.getName())
                .setRate(values.getRate() > 0 ? values.getRate() : config.getRate())
                .setInterval(values.getInterval() != null ? values.getInterval() : config.getInterval())
                .setPermits(values.getPermits() > 0 ? values.getPermits() : config.getPermits())
                .setMode(config.getMode()).setOnBackendError(config.getOnBackendError()).setShadow(config.isShadow())
                .setAlgorithm(config.getAlgorithm()).setCalendar(config.getCalendar()).setZone(config.getZone())
                .setBurst(values.getBurst() > 0 ? values.getBurst() : config.getBurst()).setKeyScope(config.getKeyScope());
    }

    static Expression tierExpression(String tier) {
        return new SpelExpressionParser().parseExpression(tier);
    }

    /** The tier {@code expression} gives {@code key}, when it is one of {@code tiers}; else null. */
    static String tierOf(Expression expression, String key, Set<String> tiers) {
        SimpleEvaluationContext context = SimpleEvaluationContext.forReadOnlyDataBinding().withInstanceMethods().build();
        context.setVariable("key", key);
        Object value = expression.getValue(context);
        return value != null && tiers.contains(value.toString()) ? value.toString() : null;
    }

    private static LimitSpec spec(RedissonRouteRateLimiter.Config config, String routeId) {
        if (config.getRate() < 1) {
            throw refused(routeId, "rate", "must be at least 1 but was " + config.getRate(), config);
        }
        CalendarPeriod calendar = config.getCalendar() == null ? CalendarPeriod.NONE : config.getCalendar();
        boolean quota = calendar != CalendarPeriod.NONE;
        if (quota && config.getInterval() != null) {
            throw refused(routeId, "interval", "is set together with calendar " + calendar + ", but a calendar quota's "
                    + "window is its period: remove one of them", config);
        }
        Duration window = quota ? calendar.longest()
                : config.getInterval() == null ? Duration.ofSeconds(1) : config.getInterval();
        if (window.toMillis() < 1) {
            throw refused(routeId, "interval", "must be at least 1ms but was " + window, config);
        }
        RateLimitAlgorithm type = config.getAlgorithm() != null && config.getAlgorithm() != RateLimitAlgorithm.DEFAULT
                ? config.getAlgorithm()
                : quota ? RateLimitAlgorithm.FIXED_WINDOW : RateLimitAlgorithm.SLIDING_WINDOW;
        if (quota && type != RateLimitAlgorithm.FIXED_WINDOW) {
            throw refused(routeId, "calendar", "is " + calendar + ", but algorithm is " + type + ": only a fixed "
                    + "window follows the calendar; set algorithm to fixed-window (or leave it unset)", config);
        }
        if (config.getBurst() != 0 && type != RateLimitAlgorithm.TOKEN_BUCKET) {
            throw refused(routeId, "burst", "is set, but algorithm is " + type + ": only a token bucket has a burst; "
                    + "set algorithm to token-bucket, or remove burst", config);
        }
        if (config.getBurst() < 0) {
            throw refused(routeId, "burst", "must be at least 1 but was " + config.getBurst(), config);
        }
        if (config.getZone() != null && !quota) {
            throw refused(routeId, "zone", "is set, but only a calendar quota has a zone: set calendar too, or "
                    + "remove zone", config);
        }
        LimitAlgorithm algorithm = switch (type) {
            case TOKEN_BUCKET -> LimitAlgorithm.tokenBucket(config.getBurst() == 0 ? config.getRate()
                    : config.getBurst());
            case FIXED_WINDOW -> quota ? LimitAlgorithm.fixedWindow(calendar, config.getZone() == null
                    ? CalendarPeriod.DEFAULT_ZONE : config.getZone()) : LimitAlgorithm.fixedWindow();
            default -> LimitAlgorithm.SLIDING_WINDOW;
        };
        return new LimitSpec(config.getRate(), window, config.getMode(), algorithm);
    }

    private static IllegalArgumentException refused(String routeId, String argument, String problem,
            RedissonRouteRateLimiter.Config config) {
        return new IllegalArgumentException("Route '" + routeId + "': " + PREFIX + argument + " " + problem
                + " (configuration " + config + ")");
    }
}
