package io.github.redissonratelimit.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;

import io.github.redissonratelimit.test.redis.FreshRedis;
import reactor.core.publisher.Mono;

/** {@code spring.cloud.gateway.server.webflux.redisson-rate-limiter.problem-body=false}: a rejection is the status and headers only, as the gateway's own. */
class GatewayProblemBodyOffTest {

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

    @Test
    void aRejectionHasNoBody() throws Exception {
        try (GatewayApp gateway = GatewayApp.start(Gateway.class, fresh.endpoint(), Map.of("limited",
                new GatewayApp.Route("/limited/**", Map.of("redisson-rate-limiter.rate", "1",
                        "redisson-rate-limiter.interval", "1m"))), "--spring.cloud.gateway.server.webflux.redisson-rate-limiter.problem-body=false")) {
            assertThat(gateway.get("/limited/x", "ann").statusCode()).isEqualTo(200);
            HttpResponse<String> rejected = gateway.get("/limited/x", "ann");
            assertThat(rejected.statusCode()).isEqualTo(429);
            assertThat(rejected.body()).isEmpty();
            assertThat(rejected.headers().firstValue("Retry-After")).isPresent();
            assertThat(rejected.headers().firstValue("RateLimit-Policy")).hasValue("\"limited\";q=1;w=60");
        }
    }
}
