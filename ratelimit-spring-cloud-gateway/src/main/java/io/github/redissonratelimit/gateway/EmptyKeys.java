package io.github.redissonratelimit.gateway;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.gateway.filter.factory.RequestRateLimiterGatewayFilterFactory;
import org.springframework.cloud.gateway.support.HttpStatusHolder;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;

/**
 * The {@code RequestRateLimiter} filter's contract for a request without a key, applied to a blank key as the filter
 * applies it to none: {@code deny-empty-key} (default true) and {@code empty-key-status} of the route's filter
 * arguments, else the filter factory's {@code spring.cloud.gateway.server.webflux.filter.request-rate-limiter.*}.
 */
final class EmptyKeys {

    private final ObjectProvider<RequestRateLimiterGatewayFilterFactory> factory;
    private final Map<String, Map<String, Object>> routeArguments = new ConcurrentHashMap<>();

    EmptyKeys(ObjectProvider<RequestRateLimiterGatewayFilterFactory> factory) {
        this.factory = factory;
    }

    /** The route's filter arguments, as they were bound. */
    void route(String routeId, Map<String, Object> arguments) {
        routeArguments.put(routeId, Map.copyOf(arguments));
    }

    /** Null: the request goes on unlimited; else the status it is refused with. */
    HttpStatusCode refusal(String routeId) {
        Map<String, Object> arguments = routeArguments.getOrDefault(routeId, Map.of());
        RequestRateLimiterGatewayFilterFactory defaults = factory.getIfAvailable();
        Object deny = argument(arguments, "deny-empty-key", "denyEmptyKey");
        boolean denied = deny != null ? Boolean.parseBoolean(deny.toString().trim())
                : defaults == null || defaults.isDenyEmptyKey();
        if (!denied) {
            return null;
        }
        Object status = argument(arguments, "empty-key-status", "emptyKeyStatus");
        String value = status != null ? status.toString().trim()
                : defaults != null ? defaults.getEmptyKeyStatusCode() : HttpStatus.FORBIDDEN.name();
        HttpStatusHolder holder = HttpStatusHolder.parse(value);
        if (holder.getHttpStatus() != null) {
            return holder.getHttpStatus();
        }
        return holder.getStatus() != null ? HttpStatusCode.valueOf(holder.getStatus()) : HttpStatus.FORBIDDEN;
    }

    private static Object argument(Map<String, Object> arguments, String kebab, String camel) {
        Object value = arguments.get(kebab);
        return value != null ? value : arguments.get(camel);
    }
}
