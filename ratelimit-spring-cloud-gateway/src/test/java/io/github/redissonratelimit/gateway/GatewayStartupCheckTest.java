package io.github.redissonratelimit.gateway;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.test.redis.FreshRedis;
import reactor.core.publisher.Mono;

/**
 * A gateway route whose limit cannot work fails startup naming the route and the argument, whether its filter
 * arguments (this limiter's or Spring Cloud Gateway's {@code redis-rate-limiter.*}) or Java configure it, instead of
 * a 500 with a generic body at its first request.
 */
class GatewayStartupCheckTest {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Gateway {

        @Bean
        KeyResolver userKeyResolver() {
            return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-User"));
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class JavaGateway {

        @Bean
        KeyResolver userKeyResolver() {
            return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-User"));
        }

        @Bean
        RouteLocator javaRoutes(RouteLocatorBuilder routes, RedissonRouteRateLimiter limiter, Environment environment) {
            limiter.getConfig().put("search", new RedissonRouteRateLimiter.Config().setRate(5)
                    .setInterval(Duration.ofSeconds(1)).setBurst(10));
            return routes.routes().route("search", route -> route.path("/search/**")
                    .filters(filters -> filters.requestRateLimiter(config -> config.setRateLimiter(limiter)))
                    .uri(environment.getProperty("backend.uri"))).build();
        }
    }

    private void assertStartupFails(Class<?> application, Map<String, GatewayApp.Route> routes, String... message) {
        assertThatThrownBy(() -> GatewayApp.start(application, fresh.endpoint(), routes).close())
                .hasStackTraceContaining("A gateway route's rate limit cannot work")
                .satisfies(ex -> {
                    for (String part : message) {
                        org.assertj.core.api.Assertions.assertThat(ex).hasStackTraceContaining(part);
                    }
                });
    }

    private static Map<String, GatewayApp.Route> route(String id, String... pairs) {
        Map<String, String> arguments = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            arguments.put(pairs[i], pairs[i + 1]);
        }
        Map<String, GatewayApp.Route> routes = new LinkedHashMap<>();
        routes.put(id, new GatewayApp.Route("/" + id + "/**", arguments));
        return routes;
    }

    @Test
    void aFilterArgumentThatCannotWork() {
        assertStartupFails(Gateway.class, route("reports", "redisson-rate-limiter.rate", "5",
                "redisson-rate-limiter.burst", "10"), "Route 'reports': redisson-rate-limiter.burst (10) is set, but "
                        + "algorithm is SLIDING_WINDOW");
    }

    @Test
    void aSpringCloudGatewayArgumentThatCannotWork() {
        assertStartupFails(Gateway.class, route("legacy", "redis-rate-limiter.replenish-rate", "0",
                "redis-rate-limiter.burst-capacity", "10"), "Route 'legacy': redis-rate-limiter.replenish-rate must "
                        + "be at least 1 but was 0");
    }

    @Test
    void bothKindsOfArguments() {
        assertStartupFails(Gateway.class, route("mixed", "redis-rate-limiter.replenish-rate", "1",
                "redisson-rate-limiter.rate", "5"), "Route 'mixed': sets both redisson-rate-limiter.* and "
                        + "redis-rate-limiter.* arguments");
    }

    @Test
    void twoRoutesThatNameOneLimitDifferently() {
        Map<String, GatewayApp.Route> routes = route("a", "redisson-rate-limiter.rate", "5",
                "redisson-rate-limiter.name", "team");
        routes.putAll(route("b", "redisson-rate-limiter.rate", "6", "redisson-rate-limiter.name", "team"));
        assertStartupFails(Gateway.class, routes, "Routes 'a' and 'b' both set redisson-rate-limiter.name 'team' "
                + "but configure different limits");
    }

    @Test
    void aJavaConfiguration() {
        assertStartupFails(JavaGateway.class, Map.of(), "Route 'search': redisson-rate-limiter.burst (10) is set, but "
                + "algorithm is " + RateLimitAlgorithm.SLIDING_WINDOW);
    }
}
