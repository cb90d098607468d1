package io.github.redissonratelimit.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.Environment;

import com.sun.net.httpserver.HttpServer;

import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;
import reactor.core.publisher.Mono;

/**
 * A real gateway in front of a real backend, on a real Redis: the {@code RequestRateLimiter} filter decides with
 * {@link RedissonRouteRateLimiter}, configured in Java and in a route definition's arguments; a rejected request never
 * reaches the backend and carries the IETF headers and {@code Retry-After}; the grants are in Redis.
 */
class GatewayRouteRateLimitTest {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();

    /**
     * HTTP/1.1 as the gateway serves it (the default client first offers an h2c upgrade on plain http); a request
     * that gets no answer fails the test instead of waiting for ever (Reactor Netty 1.3.6 to 1.3.8 left one unanswered
     * now and then: see the Gateway 5 module's test application.properties).
     */
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final AtomicInteger backendHits = new AtomicInteger();
    private HttpServer backend;
    private ConfigurableApplicationContext gateway;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Gateway {

        @Bean
        KeyResolver userKeyResolver() {
            return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-User"));
        }

        @Bean
        RouteLocator javaRoutes(RouteLocatorBuilder routes, RedissonRouteRateLimiter limiter, KeyResolver users,
                Environment environment) {
            limiter.getConfig().put("orders", new RedissonRouteRateLimiter.Config().setRate(3)
                    .setInterval(Duration.ofMinutes(1)).setName("gateway-orders"));
            return routes.routes().route("orders", route -> route.path("/orders/**")
                    .filters(filters -> filters.requestRateLimiter(config -> config.setRateLimiter(limiter)
                            .setKeyResolver(users)))
                    .uri(environment.getProperty("backend.uri"))).build();
        }
    }

    @BeforeEach
    void start() throws IOException {
        backend = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        backend.createContext("/", exchange -> {
            backendHits.incrementAndGet();
            byte[] body = "backend".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        backend.start();
        String backendUri = "http://127.0.0.1:" + backend.getAddress().getPort();
        gateway = new SpringApplicationBuilder(Gateway.class).web(WebApplicationType.REACTIVE)
                .initializers(context -> ((GenericApplicationContext) context).registerBean(RedissonClient.class,
                        redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown")))
                .run("--server.port=0", "--spring.main.banner-mode=off", "--backend.uri=" + backendUri,
                        "--ratelimit.backend-timeout=5s",
                        "--spring.cloud.gateway.server.webflux.routes[0].id=reports",
                        "--spring.cloud.gateway.server.webflux.routes[0].uri=" + backendUri,
                        "--spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/reports/**",
                        "--spring.cloud.gateway.server.webflux.routes[0].filters[0].name=RequestRateLimiter",
                        "--spring.cloud.gateway.server.webflux.routes[0].filters[0].args.rate-limiter=#{@redissonRouteRateLimiter}",
                        "--spring.cloud.gateway.server.webflux.routes[0].filters[0].args.key-resolver=#{@userKeyResolver}",
                        "--spring.cloud.gateway.server.webflux.routes[0].filters[0].args.redisson-rate-limiter.rate=2",
                        "--spring.cloud.gateway.server.webflux.routes[0].filters[0].args.redisson-rate-limiter.interval=30s",
                        "--spring.cloud.gateway.server.webflux.routes[0].filters[0].args.redisson-rate-limiter.tier="
                                + "#key.startsWith('gold-') ? 'gold' : null",
                        "--spring.cloud.gateway.server.webflux.routes[0].filters[0].args.redisson-rate-limiter.tiers.gold.rate=4");
    }

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        backend.stop(0);
    }

    private HttpResponse<String> get(String path, String user) throws IOException, InterruptedException {
        URI uri = URI.create("http://127.0.0.1:" + gateway.getEnvironment().getProperty("local.server.port") + path);
        return http.send(HttpRequest.newBuilder(uri).header("X-User", user).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private Long free(String key) {
        try (RespClient cli = redis.cli()) {
            String free = cli.string("GET", "rate_limit:{" + key + "}:value");
            return free == null ? null : Long.valueOf(free);
        }
    }

    @Test
    void aJavaRouteIsLimitedPerKeyAndARejectedRequestNeverReachesTheBackend() throws Exception {
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> allowed = get("/orders/1", "ann");
            assertThat(allowed.statusCode()).isEqualTo(200);
            assertThat(allowed.body()).isEqualTo("backend");
            assertThat(allowed.headers().firstValue("RateLimit-Policy")).hasValue("\"gateway-orders\";q=3;w=60");
            int left = 2 - i;
                assertThat(allowed.headers().firstValue("RateLimit")).hasValueSatisfying(
                    value -> assertThat(value).matches("\"gateway-orders\";r=" + left + ";t=(5[0-9]|60)"));
        }
        HttpResponse<String> rejected = get("/orders/1", "ann");
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("Retry-After")).hasValueSatisfying(
                seconds -> assertThat(Long.parseLong(seconds)).isBetween(55L, 60L));
        assertThat(backendHits).as("the rejected request never reached the backend").hasValue(3);
        assertThat(free("gateway-orders:ann")).as("three grants, counted in Redis in the route's own limiter").isEqualTo(0L);

        assertThat(get("/orders/1", "bob").statusCode()).as("another key").isEqualTo(200);
        assertThat(gateway.getBean(io.github.redissonratelimit.operation.RateLimitOperationSource.class)
                .declaredLimits().named("gateway-orders")).as("listed by name for the actuator endpoint").hasSize(1);
    }

    @Test
    void aRouteDefinitionConfiguresTheLimitInItsFilterArguments() throws Exception {
        assertThat(get("/reports/x", "cy").statusCode()).isEqualTo(200);
        HttpResponse<String> second = get("/reports/x", "cy");
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(second.headers().firstValue("RateLimit-Policy")).hasValue("\"reports\";q=2;w=30");
        assertThat(get("/reports/x", "cy").statusCode()).isEqualTo(429);
        assertThat(backendHits).hasValue(2);

        for (int i = 0; i < 4; i++) {
            HttpResponse<String> gold = get("/reports/x", "gold-dee");
            assertThat(gold.statusCode()).as("the gold tier: 4 per 30s").isEqualTo(200);
            assertThat(gold.headers().firstValue("RateLimit-Policy")).hasValue("\"reports\";q=4;w=30");
        }
        assertThat(get("/reports/x", "gold-dee").statusCode()).isEqualTo(429);
    }
}
