/*
 * Ported from Spring Cloud Gateway 4.3.0, RequestRateLimiterGatewayFilterFactoryTests
 * (spring-cloud-gateway-server/src/test/java/org/springframework/cloud/gateway/filter/factory), by Spencer Gibb.
 * Copyright 2013-2025 the original author or authors, licensed under the Apache License, Version 2.0
 * (https://www.apache.org/licenses/LICENSE-2.0).
 * Changed: the filter's RateLimiter is RedissonRouteRateLimiter on the test-support Redis instead of a mock, so
 * "notallowedkey" is refused by exhausting its limit; the chain is a lambda that records being called; the header
 * checked is the limiter's X-RateLimit-Remaining (style gateway) instead of the mock's X-Tokens-Remaining; the
 * assertions run after the filter completes instead of inside a subscriber, where a failure went unseen; the filter
 * runs behind this module's global RefusalAnswerFilter, as in a gateway.
 */
package io.github.redissonratelimit.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.factory.RequestRateLimiterGatewayFilterFactory;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.http.HttpStatus;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;

import io.github.redissonratelimit.test.redis.TestRedis;
import reactor.core.publisher.Mono;

/** Spring Cloud Gateway's {@code RequestRateLimiter} filter contract with this module's limiter as its limiter. */
class PortedRequestRateLimiterGatewayFilterFactoryTest {

    private static GatewayApp gateway;

    private static ApplicationContext context;

    private static KeyResolver resolver2;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    public static class TestConfig {

        @Bean
        @Primary
        KeyResolver resolver1() {
            return exchange -> Mono.just("allowedkey");
        }

        @Bean
        KeyResolver resolver2() {
            return exchange -> Mono.just("notallowedkey");
        }
    }

    @BeforeAll
    static void start() throws Exception {
        gateway = GatewayApp.start(TestConfig.class, TestRedis.endpoint(), Map.of(), "--ratelimit.headers.style=gateway");
        context = gateway.context();
        resolver2 = context.getBean("resolver2", KeyResolver.class);
        context.getBean(RedissonRouteRateLimiter.class).getConfig().put("myroute",
                new RedisRateLimiterArguments().setReplenishRate(1).setBurstCapacity(1).toConfig("myroute"));
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    @BeforeEach
    void exhaustNotAllowedKey() {
        RedissonRouteRateLimiter limiter = context.getBean(RedissonRouteRateLimiter.class);
        TestRedis.endpoint().flushAll();
        limiter.isAllowed("myroute", "notallowedkey").block();
    }

    @Test
    public void allowedWorks() {
        // tests that auto wired as default works
        assertFilterFactory(null, "allowedkey", true, HttpStatus.OK);
    }

    @Test
    public void notAllowedWorks() {
        assertFilterFactory(resolver2, "notallowedkey", false, HttpStatus.TOO_MANY_REQUESTS);
    }

    @Test
    public void emptyKeyDenied() {
        assertFilterFactory(exchange -> Mono.empty(), null, true, HttpStatus.FORBIDDEN);
    }

    @Test
    public void emptyKeyAllowed() {
        assertFilterFactory(exchange -> Mono.empty(), null, true, HttpStatus.OK, false);
    }

    /** Here: a blank key follows the empty-key contract as no key does (SCG's limiter counts it as a key). */
    @Test
    public void blankKeyDenied() {
        assertFilterFactory(exchange -> Mono.just(""), null, true, HttpStatus.FORBIDDEN);
    }

    private void assertFilterFactory(KeyResolver keyResolver, String key, boolean allowed, HttpStatus expectedStatus) {
        assertFilterFactory(keyResolver, key, allowed, expectedStatus, null);
    }

    private void assertFilterFactory(KeyResolver keyResolver, String key, boolean allowed, HttpStatus expectedStatus,
            Boolean denyEmptyKey) {

        // Here: a bucket of 1, so an allowed request leaves 0, as a refused one finds it
        String tokensRemaining = "0";

        MockServerHttpRequest request = MockServerHttpRequest.get("/").build();
        MockServerWebExchange exchange = MockServerWebExchange.from(request);
        exchange.getResponse().setStatusCode(HttpStatus.OK);
        exchange.getAttributes()
            .put(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR,
                    Route.async().id("myroute").predicate(ex -> true).uri("http://localhost").build());

        AtomicBoolean chained = new AtomicBoolean();
        GatewayFilterChain filterChain = filtered -> {
            chained.set(true);
            return Mono.empty();
        };

        RequestRateLimiterGatewayFilterFactory factory = context.getBean(RequestRateLimiterGatewayFilterFactory.class);
        boolean denyEmptyKeyBefore = factory.isDenyEmptyKey();
        if (denyEmptyKey != null) {
            factory.setDenyEmptyKey(denyEmptyKey);
        }
        try {
            GatewayFilter filter = factory.apply(config -> {
                config.setRouteId("myroute");
                config.setKeyResolver(keyResolver);
            });

            // as in a gateway, behind this module's global filter that completes the answer to a refusal
            new RefusalAnswerFilter(true).filter(exchange, answering -> filter.filter(answering, filterChain)).block();
        }
        finally {
            factory.setDenyEmptyKey(denyEmptyKeyBefore);
        }
        assertThat(exchange.getResponse().getStatusCode()).isEqualTo(expectedStatus);
        assertThat(chained.get()).as("the request went on").isEqualTo(expectedStatus == HttpStatus.OK);
        if (key != null) {
            assertThat(exchange.getResponse().getHeaders().get("X-RateLimit-Remaining")).containsExactly(tokensRemaining);
        }
    }
}
