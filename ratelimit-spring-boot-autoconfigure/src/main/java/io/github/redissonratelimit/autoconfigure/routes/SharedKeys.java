package io.github.redissonratelimit.autoconfigure.routes;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.operation.RateLimitOperation;

/**
 * Routes keyed alike in the shared scope count in one limiter per key, which stores one limit: routes whose limits
 * differ would flip it on every request, so startup fails naming both.
 */
final class SharedKeys {

    private SharedKeys() {
    }

    /** @throws InvalidConfigurationPropertyValueException for a shared route whose limits differ from another's */
    static void requireOneLimitPerKey(List<Route> routes) {
        Map<String, Route> byKey = new HashMap<>();
        for (Route route : routes) {
            if (route.key() == null || !route.operation().callerKey().shared()) {
                continue;
            }
            Route first = byKey.putIfAbsent(route.key().source().strip(), route);
            if (first != null && !limits(first).equals(limits(route))) {
                throw new InvalidConfigurationPropertyValueException("ratelimit.routes." + route.name() + ".key-scope",
                        "shared", "routes '" + first.name() + "' (" + describe(first) + ") and '" + route.name()
                                + "' (" + describe(route) + ") are both keyed by " + route.key().source()
                                + " in the shared scope, so each key's one limiter would flip between their limits: "
                                + "remove key-scope (each route then counts in its own limiter) from one of them, "
                                + "or give both the same limits");
            }
        }
    }

    /** What the limiter of a key stores: the route's limit and its tiers'. */
    private static Map<String, LimitSpec> limits(Route route) {
        Map<String, LimitSpec> limits = new LinkedHashMap<>();
        limits.put("", route.operation().spec());
        route.tiers().forEach((tier, operation) -> limits.put(tier, operation.spec()));
        return limits;
    }

    private static String describe(Route route) {
        StringBuilder text = new StringBuilder(route.operation().spec().toString());
        route.tiers().forEach((tier, operation) -> text.append(", tier ").append(tier).append(": ")
                .append(operation.spec()));
        return text.toString();
    }
}
