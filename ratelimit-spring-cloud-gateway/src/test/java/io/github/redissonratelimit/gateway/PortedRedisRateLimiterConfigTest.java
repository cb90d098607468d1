/*
 * Ported from Spring Cloud Gateway 4.3.0, RedisRateLimiterConfigTests and RedisRateLimiterDefaultFilterConfigTests
 * (spring-cloud-gateway-server/src/test/java/org/springframework/cloud/gateway/filter/ratelimit) and their profiles
 * application-redis-rate-limiter-config.yml and application-redis-rate-limiter-default-config.yml, by Spencer Gibb
 * and Denis Cutic. Copyright 2013-2025 the original author or authors, licensed under the Apache License, Version 2.0
 * (https://www.apache.org/licenses/LICENSE-2.0).
 * Changed: the routes and default filters keep SCG's redis-rate-limiter arguments but name no limiter, so the primary
 * RedissonRouteRateLimiter takes them; each route's limit is read from its config (rate = replenishRate per second,
 * burst = burstCapacity, permits = requestedTokens); differences are marked "Here:".
 */
package io.github.redissonratelimit.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.annotation.Bean;

import io.github.redissonratelimit.autoconfigure.DefaultsProperties;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.test.redis.FreshRedis;

/**
 * Spring Cloud Gateway's configuration tests of its Redis limiter on this module's: {@code redis-rate-limiter.*}
 * arguments of a route and of the default filters, and the Java route builder, configure the same token bucket.
 */
class PortedRedisRateLimiterConfigTest {

    private static final DefaultsProperties NO_DEFAULTS = new DefaultsProperties();

    private static final String DEFAULT_FILTERS = "--spring.cloud.gateway.server.webflux.default-filters[0].";

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();

    private GatewayApp gateway;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    public static class TestConfig {

        @Bean
        public RouteLocator testRouteLocator(RouteLocatorBuilder builder) {
            return builder.routes()
                .route("custom_redis_rate_limiter",
                        r -> r.path("/custom")
                            .filters(f -> f.requestRateLimiter()
                                .rateLimiter(RedissonRouteRateLimiter.class,
                                        rl -> rl.setAlgorithm(RateLimitAlgorithm.TOKEN_BUCKET).setBurst(40).setRate(20)
                                            .setPermits(10))
                                .and())
                            .uri("http://localhost"))
                .build();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    public static class DefaultFilterTestConfig {
    }

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    private static GatewayApp.Route route(String path, String... pairs) {
        Map<String, String> arguments = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            arguments.put(pairs[i], pairs[i + 1]);
        }
        return new GatewayApp.Route(path, arguments);
    }

    private void startConfigTest() throws Exception {
        Map<String, GatewayApp.Route> routes = new LinkedHashMap<>();
        routes.put("redis_rate_limiter_config_test", route("/", "redis-rate-limiter.replenish-rate", "10",
                "redis-rate-limiter.burst-capacity", "20"));
        routes.put("redis_rate_limiter_minimal_config_test", route("/", "redis-rate-limiter.replenish-rate", "2"));
        gateway = GatewayApp.start(TestConfig.class, fresh.endpoint(), routes);
    }

    /**
     * Here: SCG's {@code new RedisRateLimiter(10, 5)} throws; this limiter has no such constructor, and a burst below
     * the rate is a bucket of that size refilled at the rate, as SCG's own minimal configuration (rate 2, burst 1) is.
     */
    @Test
    public void aBurstCapacityBelowTheReplenishRateIsABucketOfThatSize() {
        RedissonRouteRateLimiter.Config config = new RedisRateLimiterArguments().setReplenishRate(10)
                .setBurstCapacity(5).toConfig("r");
        assertThat(GatewayLimit.operation(config, "r", NO_DEFAULTS).spec().algorithm()).isEqualTo(LimitAlgorithm.tokenBucket(5));
        assertThat(GatewayLimit.operation(config, "r", NO_DEFAULTS).spec().rate()).isEqualTo(10);
    }

    @Test
    public void redisRateConfiguredFromEnvironment() throws Exception {
        startConfigTest();
        assertFilter("redis_rate_limiter_config_test", 10, 20, 1);
    }

    @Test
    public void redisRateConfiguredFromEnvironmentMinimal() throws Exception {
        startConfigTest();
        assertFilter("redis_rate_limiter_minimal_config_test", 2, 1, 1);
    }

    @Test
    public void redisRateConfiguredFromJavaAPI() throws Exception {
        startConfigTest();
        assertFilter("custom_redis_rate_limiter", 20, 40, 10);
    }

    /**
     * Here: SCG's {@code redisRateConfiguredFromJavaAPIDirectBean} builds a second {@code RedisRateLimiter(30, 60, 20)}
     * with a default configuration for every route; this limiter is the one auto-configured bean, and each route's
     * limit is configured on it.
     */
    @Test
    public void redisRateConfiguredFromEnvironmentDefaultFilters() throws Exception {
        Map<String, GatewayApp.Route> routes = new LinkedHashMap<>();
        routes.put("redis_rate_limiter_config_default_test", new GatewayApp.Route("/default", Map.of()));
        gateway = GatewayApp.start(DefaultFilterTestConfig.class, fresh.endpoint(), routes,
                DEFAULT_FILTERS + "name=RequestRateLimiter",
                DEFAULT_FILTERS + "args.redis-rate-limiter.replenish-rate=70",
                DEFAULT_FILTERS + "args.redis-rate-limiter.burst-capacity=80",
                DEFAULT_FILTERS + "args.redis-rate-limiter.requested-tokens=10");
        String routeId = "redis_rate_limiter_config_default_test";
        RedissonRouteRateLimiter.Config config = gateway.context().getBean(RedissonRouteRateLimiter.class).getConfig()
                .get(routeId);
        assertConfigAndRoute(routeId, 70, 80, 10, config, false);
    }

    private void assertFilter(String key, int replenishRate, int burstCapacity, int requestedTokens) {
        RedissonRouteRateLimiter rateLimiter = gateway.context().getBean(RedissonRouteRateLimiter.class);
        assertThat(rateLimiter.getConfig()).containsKey(key);
        assertConfigAndRoute(key, replenishRate, burstCapacity, requestedTokens, rateLimiter.getConfig().get(key), true);
    }

    private void assertConfigAndRoute(String key, int replenishRate, int burstCapacity, int requestedTokens,
            RedissonRouteRateLimiter.Config config, boolean oneFilter) {
        assertThat(config).isNotNull();
        assertThat(config.getRate()).isEqualTo(replenishRate);
        assertThat(config.getBurst()).isEqualTo(burstCapacity);
        assertThat(config.getPermits()).isEqualTo(requestedTokens);
        assertThat(config.getAlgorithm()).isEqualTo(RateLimitAlgorithm.TOKEN_BUCKET);
        assertThat(config.getInterval() == null ? Duration.ofSeconds(1) : config.getInterval())
                .isEqualTo(Duration.ofSeconds(1));

        List<Route> routes = gateway.context().getBean(RouteLocator.class).getRoutes().collectList().block();
        Route route = routes.stream().filter(r -> r.getId().equals(key)).findFirst().orElse(null);
        assertThat(route).isNotNull();
        if (oneFilter) {
            assertThat(route.getFilters()).hasSize(1);
        }
        else {
            assertThat(route.getFilters()).isNotEmpty();
        }
    }
}
