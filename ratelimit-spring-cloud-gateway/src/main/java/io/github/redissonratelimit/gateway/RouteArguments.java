package io.github.redissonratelimit.gateway;

import java.util.HashMap;
import java.util.Map;

import org.springframework.cloud.gateway.support.ConfigurationService;

import io.github.redissonratelimit.autoconfigure.DefaultsProperties;
import io.github.redissonratelimit.gateway.RedissonRouteRateLimiter.Config;

/**
 * A route's limit from its filter arguments: {@code redisson-rate-limiter.*}, or Spring Cloud Gateway's
 * {@code redis-rate-limiter.*} ({@link RedisRateLimiterArguments}), and the checks that refuse, naming the route and
 * the argument, a limit that cannot work.
 */
final class RouteArguments {

    private RouteArguments() {
    }

    /**
     * The route's limit, or null when its arguments configure none.
     * @throws IllegalArgumentException naming the route and the argument at fault
     */
    static Config bind(String routeId, Map<String, Object> arguments, ConfigurationService binder,
            DefaultsProperties defaults) {
        boolean own = hasArgumentsOf(arguments, RedissonRouteRateLimiter.CONFIGURATION_PROPERTY_NAME);
        boolean redis = hasArgumentsOf(arguments, RedisRateLimiterArguments.CONFIGURATION_PROPERTY_NAME);
        if (!own && !redis) {
            return null;
        }
        if (own && redis) {
            throw new IllegalArgumentException("Route '" + routeId + "': sets both "
                    + RedissonRouteRateLimiter.CONFIGURATION_PROPERTY_NAME + ".* and "
                    + RedisRateLimiterArguments.CONFIGURATION_PROPERTY_NAME + ".* arguments: keep one of them");
        }
        Config config;
        if (own) {
            config = new Config();
            binder.with(config).name(RedissonRouteRateLimiter.CONFIGURATION_PROPERTY_NAME)
                    .normalizedProperties(arguments).bind();
        }
        else {
            RedisRateLimiterArguments redisArguments = new RedisRateLimiterArguments();
            binder.with(redisArguments).name(RedisRateLimiterArguments.CONFIGURATION_PROPERTY_NAME)
                    .normalizedProperties(arguments).bind();
            config = redisArguments.toConfig(routeId);
        }
        check(routeId, config, defaults);
        return config;
    }

    private static boolean hasArgumentsOf(Map<String, Object> arguments, String prefix) {
        return arguments.keySet().stream().anyMatch(key -> key.startsWith(prefix + "."));
    }

    /**
     * Builds the limit of every configured route and tier, so that one that cannot work is refused, and refuses two
     * routes that set one limit name but configure it differently.
     * @throws IllegalArgumentException naming the route and the argument at fault
     */
    static void checkAll(Map<String, Config> configs, DefaultsProperties defaults) {
        Map<String, String> routeByName = new HashMap<>();
        Map<String, String> limitByName = new HashMap<>();
        configs.forEach((routeId, config) -> {
            check(routeId, config, defaults);
            String name = RedissonRouteRateLimiter.limitName(config, routeId);
            String limit = config.refusesAll() != null ? "refuses every request"
                    : GatewayLimit.operation(config, routeId, defaults).spec() + ", " + Math.max(1, config.getPermits())
                            + " permits, key-scope " + config.getKeyScope();
            String earlier = limitByName.putIfAbsent(name, limit);
            if (earlier != null && !earlier.equals(limit)) {
                throw new IllegalArgumentException("Routes '" + routeByName.get(name) + "' and '" + routeId
                        + "' both set " + RedissonRouteRateLimiter.CONFIGURATION_PROPERTY_NAME + ".name '" + name
                        + "' but configure different limits (" + earlier + "; " + limit + "): routes that name one "
                        + "limit share it, so give them the same limit, or give each its own name");
            }
            routeByName.putIfAbsent(name, routeId);
        });
    }

    private static void check(String routeId, Config config, DefaultsProperties defaults) {
        if (config.refusesAll() == null) {
            GatewayLimit.operation(config, routeId, defaults);
            config.getTiers().keySet().forEach(tier -> GatewayLimit.operation(config.forTier(tier), routeId,
                    defaults));
        }
    }
}
