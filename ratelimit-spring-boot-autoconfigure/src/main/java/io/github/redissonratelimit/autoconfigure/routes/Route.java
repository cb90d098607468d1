package io.github.redissonratelimit.autoconfigure.routes;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPattern.PathMatchInfo;

import io.github.redissonratelimit.RateLimitConditionException;
import io.github.redissonratelimit.RateLimitCostException;
import io.github.redissonratelimit.RateLimitKeyException;
import io.github.redissonratelimit.interceptor.KeyedLimit;
import io.github.redissonratelimit.operation.RateLimitOperation;

/**
 * One entry of {@code ratelimit.routes}, ready to apply: the paths and methods it covers, its limit (and the limit
 * of each tier), and its expressions.
 *
 * @param methods upper case; empty: every method
 * @param tiers the limit of each configured tier, picked by {@code tier}
 */
record Route(String name, List<PathPattern> paths, Set<String> methods, RateLimitOperation operation,
        Map<String, RateLimitOperation> tiers, RouteExpression key, RouteExpression cost, RouteExpression chargeWhen,
        RouteExpression tier) {

    /** The request with the route's path variables when the route covers it; null otherwise. */
    RouteRequest match(String method, PathContainer path, RouteRequest request) {
        if (!methods.isEmpty() && !methods.contains(method)) {
            return null;
        }
        for (PathPattern pattern : paths) {
            PathMatchInfo info = pattern.matchAndExtract(path);
            if (info != null) {
                return info.getUriVariables().isEmpty() ? request : request.withPathVariables(info.getUriVariables());
            }
        }
        return null;
    }

    /**
     * The limit this request takes, or null when its cost is 0.
     * @throws RateLimitKeyException when the key is null or blank, has a null part, or its expression fails
     * @throws RateLimitCostException when the cost is not a whole number from 0 to the rate (a token bucket's burst)
     * @throws RateLimitConditionException when the tier expression fails
     */
    KeyedLimit limitFor(RouteRequest request) {
        RateLimitOperation limit = tierOf(request);
        long permits = permitsOf(limit, request);
        return permits == 0 ? null : new KeyedLimit(limit, keyOf(limit, request), permits);
    }

    /** Whether the request, answered with {@code status}, counts; true without {@code charge-when}. */
    boolean charges(RouteRequest request, int status) {
        if (chargeWhen == null) {
            return true;
        }
        Object value;
        try {
            value = chargeWhen.evaluate(request, Map.of("status", status));
        }
        catch (RuntimeException ex) {
            return true; // a condition that fails keeps the charge
        }
        return !(value instanceof Boolean charged) || charged;
    }

    private RateLimitOperation tierOf(RouteRequest request) {
        if (tier == null) {
            return operation;
        }
        Object value;
        try {
            value = tier.evaluate(request);
        }
        catch (RuntimeException ex) {
            throw new RateLimitConditionException(new RateLimitConditionException(operation.method(), "tier",
                    tier.source(), "failed: " + ex.getMessage(), ex), name, name);
        }
        RateLimitOperation configured = value == null ? null : tiers.get(value.toString());
        return configured != null ? configured : operation;
    }

    private String keyOf(RateLimitOperation limit, RouteRequest request) {
        if (key == null) {
            return name;
        }
        Object value;
        try {
            value = key.evaluate(request);
        }
        catch (RuntimeException ex) {
            throw named(new RateLimitKeyException(limit.method(), key.source(), "failed: " + ex.getMessage(), ex));
        }
        String nullPart = value == null ? null : key.nullPart(value.toString(), request);
        if (value == null || value.toString().isBlank() || nullPart != null) {
            throw named(new RateLimitKeyException(limit.method(), key.source(), value == null ? "evaluated to null"
                    : nullPart != null ? "has a null part: " + nullPart + " is null" : "evaluated to an empty key",
                    null));
        }
        return limit.callerKey().logicalKey(value.toString());
    }

    private RateLimitKeyException named(RateLimitKeyException failure) {
        return new RateLimitKeyException(failure, name, name);
    }

    private long permitsOf(RateLimitOperation limit, RouteRequest request) {
        if (cost == null) {
            return limit.permits();
        }
        Object value;
        try {
            value = cost.evaluate(request);
        }
        catch (RuntimeException ex) {
            throw new RateLimitCostException(limit.method(), cost.source(), limit.name(), limit.displayName(), null,
                    "failed: " + ex.getMessage(), ex);
        }
        Long permits = value instanceof Number number && number.doubleValue() == number.longValue()
                ? Long.valueOf(number.longValue())
                : value instanceof String text && text.matches("-?\\d{1,18}") ? Long.valueOf(text) : null;
        if (permits == null || permits < 0 || permits > limit.spec().capacity()) {
            throw new RateLimitCostException(limit.method(), cost.source(), limit.name(), limit.displayName(), permits,
                    "gave " + (permits == null ? "no whole number" : permits) + " for "
                            + (limit.spec().capacity() == limit.spec().rate() ? "a rate of " : "a burst of ")
                            + limit.spec().capacity(), null);
        }
        return permits;
    }
}
