package io.github.redissonratelimit.gateway;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import io.github.redissonratelimit.autoconfigure.DefaultsProperties;
import io.github.redissonratelimit.gateway.RedissonRouteRateLimiter.Config;
import io.github.redissonratelimit.operation.RateLimitOperation;

/** The limit of each route and tier, built once per route, configuration and tier, and declared when built. */
final class RouteOperations {

    private final Consumer<List<RateLimitOperation>> declare;
    private final Map<String, RateLimitOperation> operations = new ConcurrentHashMap<>();

    private final DefaultsProperties defaults;

    /**
     * @param declare told each route's limit once, so that it is listed, reset and overridden by name
     * @param defaults {@code ratelimit.defaults}, for what a route does not set
     */
    RouteOperations(Consumer<List<RateLimitOperation>> declare, DefaultsProperties defaults) {
        this.declare = declare;
        this.defaults = defaults;
    }

    /** The limit of route {@code routeId}, configured by {@code config}, for the tier of {@code key}. */
    RateLimitOperation of(String routeId, Config config, String key) {
        String tier = config.tierOf(key);
        Config current = tier == null ? config : config.forTier(tier);
        String cacheKey = routeId + '\u0000' + current;
        RateLimitOperation operation = operations.get(cacheKey);
        if (operation == null) {
            operation = operations.computeIfAbsent(cacheKey, ignored -> {
                RateLimitOperation built = GatewayLimit.operation(current, routeId, defaults);
                declare.accept(List.of(built));
                return built;
            });
        }
        return operation;
    }
}
