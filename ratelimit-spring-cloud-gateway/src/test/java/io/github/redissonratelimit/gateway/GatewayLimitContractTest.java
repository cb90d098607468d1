package io.github.redissonratelimit.gateway;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.web.server.ServerWebExchange;

import io.github.redissonratelimit.test.contract.LimitContract;
import io.github.redissonratelimit.test.redis.FreshRedis;
import reactor.core.publisher.Mono;

/**
 * {@link LimitContract}: gateway routes deciding with {@link RedissonRouteRateLimiter}, on a real Redis. A gateway
 * route's limiter decides one limit per request and has no charge-by-outcome condition; a request without a key is
 * answered as the gateway's filter answers it.
 */
class GatewayLimitContractTest extends LimitContract {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private GatewayApp gateway;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {

        @Bean
        @Primary
        KeyResolver clientKeyResolver() {
            return exchange -> Mono.just(client(exchange));
        }

        @Bean
        KeyResolver userKeyResolver() {
            return exchange -> Mono.justOrEmpty(exchange.getRequest().getQueryParams().getFirst("user"))
                    .map(user -> user + ":" + client(exchange));
        }

        private static String client(ServerWebExchange exchange) {
            return exchange.getRequest().getRemoteAddress().getAddress().getHostAddress();
        }
    }

    @BeforeEach
    void start() throws Exception {
        Map<String, GatewayApp.Route> routes = new LinkedHashMap<>();
        routes.put("wide", route("/contract/wide", "clientKeyResolver", 5));
        routes.put("narrow", route("/contract/narrow", "clientKeyResolver", 2));
        routes.put("keyed", route("/contract/keyed", "userKeyResolver", 2));
        gateway = GatewayApp.start(Application.class, fresh.endpoint(), routes,
                "--management.endpoints.web.exposure.include=ratelimits",
                "--spring.cloud.gateway.server.webflux.filter.request-rate-limiter.empty-key-status-code=BAD_REQUEST");
    }

    private static GatewayApp.Route route(String path, String keyResolver, long rate) {
        return new GatewayApp.Route(path, Map.of("rate-limiter", "#{@redissonRouteRateLimiter}", "key-resolver",
                "#{@" + keyResolver + "}", "redisson-rate-limiter.rate", Long.toString(rate),
                "redisson-rate-limiter.interval", "60s"));
    }

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    @Override
    protected URI base() {
        return URI.create("http://127.0.0.1:" + gateway.context().getEnvironment().getProperty("local.server.port"));
    }

    @Override
    protected boolean chargesByOutcome() {
        return false;
    }

    @Override
    protected boolean decidesSeveralLimits() {
        return false;
    }

    @Override
    protected boolean answersMissingKeyWithProblem() {
        return false;
    }
}
