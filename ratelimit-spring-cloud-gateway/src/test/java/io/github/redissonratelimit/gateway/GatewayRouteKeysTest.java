package io.github.redissonratelimit.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;

import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.lease.LeaseCounts;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RespClient;
import io.github.redissonratelimit.test.redis.TestRedis;
import reactor.core.publisher.Mono;

/**
 * Whose limiter a gateway route's key counts in, on a real gateway and Redis: each route its own by default (two
 * routes with one {@code KeyResolver} count apart, as Spring Cloud Gateway's {@code RedisRateLimiter} keys by route
 * and key), one shared on purpose with {@code key-scope: shared} or by setting the same {@code name}; and a key
 * whose permits this instance leases ({@code lease}, as {@code @RateLimit(lease)}), decided mostly without a call to
 * Redis (its test here spares a gateway of its own).
 */
class GatewayRouteKeysTest {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();

    private static GatewayApp gateway;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Gateway {

        @Bean
        KeyResolver userKeyResolver() {
            return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-User"));
        }
    }

    private static Map<String, String> limit(String rate, String... more) {
        Map<String, String> arguments = new LinkedHashMap<>();
        arguments.put("key-resolver", "#{@userKeyResolver}");
        arguments.put("redisson-rate-limiter.rate", rate);
        arguments.put("redisson-rate-limiter.interval", "1m");
        for (int i = 0; i < more.length; i += 2) {
            arguments.put("redisson-rate-limiter." + more[i], more[i + 1]);
        }
        return arguments;
    }

    @BeforeAll
    static void start() throws Exception {
        Map<String, GatewayApp.Route> routes = new LinkedHashMap<>();
        routes.put("export", new GatewayApp.Route("/api/export/**", limit("2")));
        routes.put("api", new GatewayApp.Route("/api/**", limit("3")));
        routes.put("left", new GatewayApp.Route("/left/**", limit("3", "key-scope", "shared")));
        routes.put("right", new GatewayApp.Route("/right/**", limit("3", "key-scope", "shared")));
        routes.put("team-a", new GatewayApp.Route("/team-a/**", limit("3", "name", "team")));
        routes.put("team-b", new GatewayApp.Route("/team-b/**", limit("3", "name", "team")));
        routes.put("search", new GatewayApp.Route("/search/**", limit("100", "interval", "1h", "lease", "10s")));
        gateway = GatewayApp.start(Gateway.class, TestRedis.endpoint(), routes);
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    private static boolean exists(String key) {
        try (RespClient cli = TestRedis.endpoint().cli()) {
            return cli.string("GET", key + ":value") != null;
        }
    }

    @Test
    void twoRoutesWithOneKeyResolverCountApart() throws Exception {
        assertThat(gateway.get("/api/export/1", "ann").statusCode()).isEqualTo(200);
        assertThat(gateway.get("/api/export/1", "ann").statusCode()).isEqualTo(200);
        assertThat(gateway.get("/api/export/1", "ann").statusCode()).as("export: 2 a minute").isEqualTo(429);

        HttpResponse<String> first = gateway.get("/api/orders", "ann");
        assertThat(first.statusCode()).as("ann never used api").isEqualTo(200);
        assertThat(first.headers().firstValue("RateLimit")).hasValueSatisfying(
                value -> assertThat(value).startsWith("\"api\";r=2;"));
        assertThat(gateway.get("/api/orders", "ann").statusCode()).isEqualTo(200);
        assertThat(gateway.get("/api/orders", "ann").statusCode()).isEqualTo(200);
        assertThat(gateway.get("/api/orders", "ann").statusCode()).as("api: 3 a minute").isEqualTo(429);

        assertThat(exists("rate_limit:{export:ann}")).as("the route's own limiter, by its limit name").isTrue();
        assertThat(exists("rate_limit:{api:ann}")).isTrue();
        assertThat(exists("rate_limit:{ann}")).isFalse();
    }

    @Test
    void keyScopeSharedCountsInTheKeysLimiterOfEveryRouteThatSharesIt() throws Exception {
        assertThat(gateway.get("/left/1", "bob").statusCode()).isEqualTo(200);
        assertThat(gateway.get("/left/1", "bob").statusCode()).isEqualTo(200);
        HttpResponse<String> right = gateway.get("/right/1", "bob");
        assertThat(right.statusCode()).isEqualTo(200);
        assertThat(right.headers().firstValue("RateLimit")).hasValueSatisfying(
                value -> assertThat(value).startsWith("\"right\";r=0;"));
        assertThat(gateway.get("/right/1", "bob").statusCode()).isEqualTo(429);
        assertThat(exists("rate_limit:{bob}")).as("the key alone").isTrue();
    }

    @Test
    void routesThatSetOneNameShareItsLimiter() throws Exception {
        assertThat(gateway.get("/team-a/1", "cy").statusCode()).isEqualTo(200);
        assertThat(gateway.get("/team-b/1", "cy").statusCode()).isEqualTo(200);
        assertThat(gateway.get("/team-a/1", "cy").statusCode()).isEqualTo(200);
        assertThat(gateway.get("/team-b/1", "cy").statusCode()).isEqualTo(429);
        assertThat(exists("rate_limit:{team:cy}")).isTrue();
    }

    /**
     * Most decisions of a leased route are made from permits this instance leased, without a call to Redis, and at
     * most the rate reaches the backend; every {@code RateLimit} header tells at most what is left. The lease period
     * (10 s) outlasts the test.
     */
    @Test
    void aLeasedRouteDecidesMostlyWithoutRedisAndPassesAtMostItsRate() throws Exception {
        LeaseCounts leases = gateway.context().getBean(RateLimitAutoConfiguration.LEASE_DECORATOR, LeaseCounts.class);
        Pattern remaining = Pattern.compile("\"search\";r=(\\d+)");
        int backendBefore = gateway.backendHits();
        int admitted = 0;
        for (int i = 0; i < 130; i++) {
            HttpResponse<String> response = gateway.get("/search/q", "dee");
            if (response.statusCode() == 200) {
                admitted++;
                Matcher left = remaining.matcher(response.headers().firstValue("RateLimit").orElseThrow());
                assertThat(left.find()).isTrue();
                assertThat(Long.parseLong(left.group(1))).as("remaining after %d admitted", admitted)
                        .isLessThanOrEqualTo(100 - admitted);
            }
            else {
                assertThat(response.statusCode()).isEqualTo(429);
            }
        }

        assertThat(gateway.backendHits() - backendBefore).isEqualTo(admitted).isBetween(90, 100);
        assertThat(leases.leaseHits()).as("decisions from the lease (Redis calls: %d)", leases.redisCalls())
                .isGreaterThanOrEqualTo(admitted * 8L / 10);
        try (RespClient cli = TestRedis.endpoint().cli()) {
            assertThat(cli.string("GET", "rate_limit:{search:dee}:value")).as("Redis's free permits").isEqualTo("0");
        }
    }
}
