package io.github.redissonratelimit.gateway;

import java.time.Duration;
import java.util.Set;

import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

import io.github.redissonratelimit.algorithm.AlgorithmSettingException;
import io.github.redissonratelimit.algorithm.Algorithms;
import io.github.redissonratelimit.algorithm.Setting;
import io.github.redissonratelimit.autoconfigure.DefaultsProperties;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.operation.CallerKey;
import io.github.redissonratelimit.operation.RateLimitOperation;

/**
 * The limit of one gateway route from its {@link RedissonRouteRateLimiter.Config}: rate, interval (or calendar
 * period), mode, permits, the algorithm and the lease. A configuration that cannot work is refused naming its
 * argument.
 */
final class GatewayLimit {

    private static final String PREFIX = RedissonRouteRateLimiter.CONFIGURATION_PROPERTY_NAME + ".";

    private GatewayLimit() {
    }

    /**
     * @param defaults {@code ratelimit.defaults}: the algorithm and zone of a route that sets none
     * @throws IllegalArgumentException naming the route and the argument at fault
     */
    static RateLimitOperation operation(RedissonRouteRateLimiter.Config config, String routeId,
            DefaultsProperties defaults) {
        String limitName = RedissonRouteRateLimiter.limitName(config, routeId);
        LimitSpec spec = spec(config, routeId, defaults);
        long taken = config.getPermits() == 0 ? 1 : config.getPermits();
        if (taken < 1 || taken > spec.capacity()) {
            throw refused(routeId, "permits", "must be from 1 to the " + spec.capacityName() + " ("
                    + spec.capacity() + ") but was " + taken, config);
        }
        return RateLimitOperation.builder("gateway route '" + routeId + "'", limitName, spec).permits(taken)
                .displayName(limitName).source("gateway route " + routeId)
                .backendErrorPolicy(config.getOnBackendError()).shadow(config.isShadow())
                .callerKey(new CallerKey("the KeyResolver of route '" + routeId + "'",
                        config.getKeyScope().keyPrefix(limitName)))
                .lease(lease(config, routeId, spec)).build();
    }

    /**
     * The route's lease period, under {@code @RateLimit(lease)}'s rule ({@link LimitSpec#leaseRefusal}).
     */
    private static Duration lease(RedissonRouteRateLimiter.Config config, String routeId, LimitSpec spec) {
        Duration lease = config.getLease();
        if (lease == null || lease.isZero()) {
            return Duration.ZERO;
        }
        LimitSpec.LeaseRefusal refusal = spec.leaseRefusal(lease, PREFIX + "lease");
        if (refusal != null) {
            throw refused(routeId, "lease", refusal.problem() + "; " + refusal.fix(), config);
        }
        return lease;
    }

    /**
     * The limit {@code config} with the values its tier sets ({@code values}), each unset one the limit's own; the
     * algorithm, calendar period, zone and lease are always the limit's: the tiers share the key's limiter.
     */
    static RedissonRouteRateLimiter.Config forTier(RedissonRouteRateLimiter.Config config,
            RedissonRouteRateLimiter.Config values) {
        return new RedissonRouteRateLimiter.Config().setName(config.getName())
                .setRate(values.getRate() > 0 ? values.getRate() : config.getRate())
                .setInterval(values.getInterval() != null ? values.getInterval() : config.getInterval())
                .setPermits(values.getPermits() > 0 ? values.getPermits() : config.getPermits())
                .setMode(config.getMode()).setOnBackendError(config.getOnBackendError()).setShadow(config.isShadow())
                .setAlgorithm(config.getAlgorithm()).setCalendar(config.getCalendar()).setZone(config.getZone())
                .setLease(config.getLease())
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

    private static LimitSpec spec(RedissonRouteRateLimiter.Config config, String routeId,
            DefaultsProperties defaults) {
        if (config.getRate() < 1) {
            throw refused(routeId, "rate", "must be at least 1 but was " + config.getRate(), config);
        }
        RateLimitAlgorithm algorithm = config.getAlgorithm() == RateLimitAlgorithm.DEFAULT ? null
                : config.getAlgorithm();
        try {
            Algorithms.Resolved window = Algorithms.resolve(new Algorithms.Choice(new Setting<>(config.getRate(),
                    "rate"), Setting.of(config.getInterval(), "interval"), null, Setting.of(algorithm, "algorithm"),
                    "algorithm", Setting.of(defaults.getAlgorithm() == RateLimitAlgorithm.DEFAULT ? null
                            : defaults.getAlgorithm(), "ratelimit.defaults.algorithm"), config.getBurst() == 0 ? null : new Setting<>(config.getBurst(),
                            "burst"), Setting.of(config.getCalendar(), "calendar"), Setting.of(config.getZone(),
                                    "zone"), defaults.getZone()));
            return new LimitSpec(config.getRate(), window.interval().value(), config.getMode(), window.algorithm());
        }
        catch (AlgorithmSettingException ex) {
            throw refused(routeId, ex.getOrigin(), ex.getProblem() + "; " + ex.getFix(), config);
        }
    }

    private static IllegalArgumentException refused(String routeId, String argument, String problem,
            RedissonRouteRateLimiter.Config config) {
        return new IllegalArgumentException("Route '" + routeId + "': " + PREFIX + argument + " " + problem
                + " (configuration " + config + ")");
    }
}
