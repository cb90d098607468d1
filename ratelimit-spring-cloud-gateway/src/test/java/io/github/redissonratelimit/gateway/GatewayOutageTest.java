package io.github.redissonratelimit.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;

import com.jayway.jsonpath.JsonPath;

import io.github.redissonratelimit.test.redis.RedisServerProcess;
import reactor.core.publisher.Mono;

/**
 * A gateway route with {@code on-backend-error: deny} while Redis is gone answers as {@code @RateLimit} does: the
 * outage status ({@code ratelimit.deny-status}, 503 by default), {@code Retry-After} and the same problem, not the
 * filter's 429 without either.
 */
class GatewayOutageTest {

    private RedisServerProcess server;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Gateway {

        @Bean
        KeyResolver userKeyResolver() {
            return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-User"));
        }
    }

    @BeforeEach
    void startRedis() {
        server = RedisServerProcess.startOnFreePort();
    }

    @AfterEach
    void stopRedis() {
        server.close();
    }

    private GatewayApp gateway(String... properties) throws Exception {
        Map<String, GatewayApp.Route> routes = new LinkedHashMap<>();
        routes.put("orders", new GatewayApp.Route("/orders/**", Map.of("redisson-rate-limiter.rate", "5",
                "redisson-rate-limiter.interval", "1m", "redisson-rate-limiter.on-backend-error", "deny")));
        return GatewayApp.start(Gateway.class, server.endpoint(), routes, properties);
    }

    @Test
    void denyDuringAnOutageIsTheOutageStatusWithRetryAfterAndAProblem() throws Exception {
        try (GatewayApp gateway = gateway()) {
            assertThat(gateway.get("/orders/1", "ann").statusCode()).isEqualTo(200);
            server.stop();
            HttpResponse<String> refused = gateway.get("/orders/1", "ann");
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.headers().firstValue("Retry-After")).hasValueSatisfying(
                    seconds -> assertThat(Long.parseLong(seconds)).isPositive());
            assertThat((Object) JsonPath.read(refused.body(), "$.title")).isEqualTo("Service Unavailable");
            assertThat((Object) JsonPath.read(refused.body(), "$.detail"))
                    .isEqualTo("The request cannot be rate limited right now; try again later");
            assertThat(gateway.backendHits()).isEqualTo(1);
        }
    }

    @Test
    void theOutageStatusIsRatelimitDenyStatus() throws Exception {
        try (GatewayApp gateway = gateway("--ratelimit.deny-status=429")) {
            assertThat(gateway.get("/orders/1", "bob").statusCode()).isEqualTo(200);
            server.stop();
            HttpResponse<String> refused = gateway.get("/orders/1", "bob");
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.headers().firstValue("Retry-After")).isPresent();
            assertThat((Object) JsonPath.read(refused.body(), "$.detail"))
                    .isEqualTo("The request cannot be rate limited right now; try again later");
        }
    }
}
