package io.github.redissonratelimit.autoconfigure.routes;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

import io.github.redissonratelimit.autoconfigure.DefaultsProperties;
import io.github.redissonratelimit.autoconfigure.KeyScope;
import io.github.redissonratelimit.autoconfigure.PolicyProperties;
import io.github.redissonratelimit.autoconfigure.RouteProperties;
import io.github.redissonratelimit.interceptor.KeyedLimit;
import io.github.redissonratelimit.operation.RateLimitOperation;

/**
 * The routes of {@code ratelimit.routes}, checked and compiled once at startup: a bad pattern, method or expression,
 * or a limit that cannot work, fails startup naming its property.
 */
public final class RouteTable {

    private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS",
            "TRACE");

    private final List<Route> routes;

    private RouteTable(List<Route> routes) {
        this.routes = routes;
    }

    /** The enabled routes of {@code properties}, in their order; {@code defaults} fill in what a route leaves out. */
    public static RouteTable of(Map<String, RouteProperties> properties, Map<String, PolicyProperties> policies,
            DefaultsProperties defaults) {
        List<Route> routes = new ArrayList<>();
        properties.forEach((name, route) -> {
            if (route.isEnabled()) {
                routes.add(compile(name, withPolicy(name, route, policies), defaults, route.getPolicy()));
            }
        });
        SharedKeys.requireOneLimitPerKey(routes);
        return new RouteTable(List.copyOf(routes));
    }

    /** The limit of every route and tier, for listing, resets and overrides by name. */
    public List<RateLimitOperation> operations() {
        List<RateLimitOperation> operations = new ArrayList<>();
        for (Route route : routes) {
            operations.add(route.operation());
            operations.addAll(route.tiers().values());
        }
        return operations;
    }

    boolean isEmpty() {
        return routes.isEmpty();
    }

    /** The routes covering the request, each with the request as it sees it (its path variables). */
    List<Applied> match(RouteRequest request) {
        PathContainer path = PathContainer.parsePath(request.getPath());
        List<Applied> applied = new ArrayList<>(1);
        for (Route route : routes) {
            RouteRequest matched = route.match(request.getMethod(), path, request);
            if (matched != null) {
                applied.add(new Applied(route, matched));
            }
        }
        return applied;
    }

    /**
     * The limits the covering routes take for their request, in order (a route whose cost is 0 takes none).
     * @throws RuntimeException a {@code RateLimitKeyException} or {@code RateLimitConditionException}: answer 400
     */
    static List<KeyedLimit> limitsOf(List<Applied> applied) {
        List<KeyedLimit> limits = new ArrayList<>(applied.size());
        for (Applied route : applied) {
            KeyedLimit limit = route.limit();
            if (limit != null) {
                limits.add(limit);
            }
        }
        return limits;
    }

    /** Whether a covering route has a {@code charge-when}: the response status decides whether it charges. */
    static boolean chargesByStatus(List<Applied> applied) {
        for (Applied route : applied) {
            if (route.route().chargeWhen() != null) {
                return true;
            }
        }
        return false;
    }

    /** The names of the covering routes whose {@code charge-when} does not hold for the response {@code status}. */
    static Set<String> notCharged(List<Applied> applied, int status) {
        Set<String> names = new HashSet<>();
        for (Applied route : applied) {
            if (!route.route().charges(route.request(), status)) {
                names.add(route.route().name());
            }
        }
        return names;
    }

    /** A route covering a request. */
    record Applied(Route route, RouteRequest request) {

        /** @see Route#limitFor */
        KeyedLimit limit() {
            return route.limitFor(request);
        }
    }

    private static Route compile(String name, RouteProperties route, DefaultsProperties defaults, String policy) {
        String prefix = "ratelimit.routes." + name + ".";
        List<PathPattern> paths = new ArrayList<>();
        for (int i = 0; i < route.getPaths().size(); i++) {
            String path = route.getPaths().get(i);
            try {
                paths.add(PathPatternParser.defaultInstance.parse(path));
            }
            catch (PatternParseException ex) {
                throw new InvalidConfigurationPropertyValueException(prefix + "paths[" + i + "]", path,
                        "not a path pattern (" + ex.getMessage() + "); write e.g. /api/** or /orders/{id}");
            }
        }
        Set<String> methods = new LinkedHashSet<>();
        for (int i = 0; i < route.getMethods().size(); i++) {
            String method = route.getMethods().get(i).trim().toUpperCase(Locale.ROOT);
            if (!METHODS.contains(method)) {
                throw new InvalidConfigurationPropertyValueException(prefix + "methods[" + i + "]",
                        route.getMethods().get(i), "not an HTTP method; use one of " + METHODS);
            }
            methods.add(method);
        }
        String description = "route '" + name + "' " + (methods.isEmpty() ? "" : methods + " ") + route.getPaths();
        RateLimitOperation operation = RouteLimits.operation(name, description, prefix, route, route, defaults,
                defaults, policy);
        Map<String, RateLimitOperation> tiers = new LinkedHashMap<>();
        route.getTiers().forEach((tier, values) -> tiers.put(tier, RouteLimits.operation(name, description + " tier '"
                + tier + "'", prefix + "tiers." + tier + ".", route, values, RouteLimits.merged(route, defaults),
                defaults, policy)));
        if (route.getKeyScope() == KeyScope.SHARED && (route.getKey() == null || route.getKey().isBlank())) {
            throw new InvalidConfigurationPropertyValueException(prefix + "key-scope", "shared", "the route has no "
                    + "key, so it has one limiter named after it: set " + prefix + "key, or remove key-scope");
        }
        if (!tiers.isEmpty() && route.getTier() == null) {
            throw new InvalidConfigurationPropertyValueException(prefix + "tiers", tiers.keySet(),
                    "tiers are configured but no " + prefix + "tier expression picks one");
        }
        return new Route(name, List.copyOf(paths), Set.copyOf(methods), operation, Map.copyOf(tiers),
                RouteExpression.parse(prefix + "key", route.getKey(), "remoteAddress or header['X-Api-Key']"),
                RouteExpression.parse(prefix + "cost", route.getCost(), "param['items'] or 2"),
                RouteExpression.parse(prefix + "charge-when", route.getChargeWhen(), "#status == 401"),
                RouteExpression.parse(prefix + "tier", route.getTier(), "header['X-Plan']"));
    }

    /** The route with the values of its {@code policy} for those it does not set. */
    private static RouteProperties withPolicy(String name, RouteProperties route, Map<String, PolicyProperties> policies) {
        if (route.getPolicy() == null) {
            return route;
        }
        PolicyProperties policy = policies.get(route.getPolicy());
        if (policy == null) {
            throw new InvalidConfigurationPropertyValueException("ratelimit.routes." + name + ".policy",
                    route.getPolicy(), "no ratelimit.policies entry has that name; known: " + policies.keySet());
        }
        RouteProperties merged = new RouteProperties();
        merged.setPaths(route.getPaths());
        merged.setMethods(route.getMethods());
        merged.setKey(route.getKey());
        merged.setKeyScope(route.getKeyScope());
        merged.setCost(route.getCost());
        merged.setChargeWhen(route.getChargeWhen());
        merged.setTier(route.getTier());
        merged.setMessage(route.getMessage());
        merged.setTiers(route.getTiers().isEmpty() ? policy.getTiers() : route.getTiers());
        merged.setRate(route.getRate() != null ? route.getRate() : policy.getRate());
        merged.setMode(route.getMode() != null ? route.getMode() : policy.getMode());
        merged.setPermits(route.getPermits() != null ? route.getPermits() : policy.getPermits());
        merged.setOnBackendError(route.getOnBackendError() != null ? route.getOnBackendError()
                : policy.getOnBackendError());
        merged.setShadow(route.getShadow() != null ? route.getShadow() : policy.getShadow());
        merged.setAlgorithm(route.getAlgorithm() != null ? route.getAlgorithm() : policy.getAlgorithm());
        merged.setBurst(route.getBurst() != null ? route.getBurst() : policy.getBurst());
        merged.setZone(route.getZone() != null ? route.getZone() : policy.getZone());
        merged.setLease(route.getLease() != null ? route.getLease() : policy.getLease());
        // the window is one value given as an interval or a calendar period: the route's replaces the policy's
        boolean routeWindow = route.getInterval() != null || route.getCalendar() != null;
        merged.setInterval(routeWindow ? route.getInterval() : policy.getInterval());
        merged.setCalendar(routeWindow ? route.getCalendar() : policy.getCalendar());
        return merged;
    }
}
