package io.github.redissonratelimit.autoconfigure.routes;

import java.util.AbstractMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * What the expressions of {@code ratelimit.routes} see of a request: {@code method}, {@code path},
 * {@code remoteAddress} (the client's address as the server sees it: forwarded headers count only as
 * {@code server.forward-headers-strategy} says), {@code principal} (the authenticated user's name, or null),
 * {@code header['X-Api-Key']}, {@code param['user']} and {@code pathVariable['id']} (null when absent).
 */
public final class RouteRequest {

    private final String method;
    private final String path;
    private final String remoteAddress;
    private final String principal;
    private final Map<String, String> header;
    private final Map<String, String> param;
    private final Map<String, String> pathVariable;

    RouteRequest(String method, String path, String remoteAddress, String principal, Function<String, String> header,
            Function<String, String> param, Map<String, String> pathVariable) {
        this.method = method;
        this.path = path;
        this.remoteAddress = remoteAddress;
        this.principal = principal;
        this.header = new Lookup(header);
        this.param = new Lookup(param);
        this.pathVariable = pathVariable;
    }

    public String getMethod() {
        return method;
    }

    public String getPath() {
        return path;
    }

    public String getRemoteAddress() {
        return remoteAddress;
    }

    public String getPrincipal() {
        return principal;
    }

    public Map<String, String> getHeader() {
        return header;
    }

    public Map<String, String> getParam() {
        return param;
    }

    public Map<String, String> getPathVariable() {
        return pathVariable;
    }

    /** The same request with the path variables of the route that matched it. */
    RouteRequest withPathVariables(Map<String, String> variables) {
        return new RouteRequest(method, path, remoteAddress, principal, ((Lookup) header).values,
                ((Lookup) param).values, variables);
    }

    /** Values looked up by name when an expression asks, not copied per request. */
    private static final class Lookup extends AbstractMap<String, String> {

        private final Function<String, String> values;

        Lookup(Function<String, String> values) {
            this.values = values;
        }

        @Override
        public String get(Object name) {
            return name instanceof String text ? values.apply(text) : null;
        }

        @Override
        public boolean containsKey(Object name) {
            return get(name) != null;
        }

        @Override
        public Set<Entry<String, String>> entrySet() {
            return Set.of();
        }
    }
}
