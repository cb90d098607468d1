package io.github.redissonratelimit.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

import com.jayway.jsonpath.JsonPath;

import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.TestRedis;
import reactor.core.publisher.Mono;

/**
 * What a client of the gateway gets when the limiter refuses its request: the RFC 9457 problem body of annotated
 * limits beside the {@code Retry-After} and rate limit headers; a blank key answered under the filter's
 * {@code deny-empty-key} / {@code empty-key-status} contract, with a problem and one log line; an empty key as
 * Spring Cloud Gateway answers it; a route whose bucket is smaller than a request refusing every request.
 */
@ExtendWith(OutputCaptureExtension.class)
class GatewayRefusalAnswerTest {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();

    private static GatewayApp gateway;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Gateway {

        @Bean
        @Primary
        KeyResolver userKeyResolver() {
            return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-User"));
        }

        @Bean
        KeyResolver blankKeyResolver() {
            return exchange -> Mono.just(" ");
        }
    }

    private static Map<String, String> arguments(String... pairs) {
        Map<String, String> arguments = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            arguments.put(pairs[i], pairs[i + 1]);
        }
        return arguments;
    }

    @BeforeAll
    static void start() throws Exception {
        Map<String, GatewayApp.Route> routes = new LinkedHashMap<>();
        routes.put("limited", new GatewayApp.Route("/limited/**", arguments("redisson-rate-limiter.rate", "1",
                "redisson-rate-limiter.interval", "1m")));
        routes.put("blank", new GatewayApp.Route("/blank/**", arguments("key-resolver", "#{@blankKeyResolver}",
                "redisson-rate-limiter.rate", "5")));
        routes.put("blank-open", new GatewayApp.Route("/blank-open/**", arguments("key-resolver",
                "#{@blankKeyResolver}", "deny-empty-key", "false", "redisson-rate-limiter.rate", "5")));
        routes.put("blank-status", new GatewayApp.Route("/blank-status/**", arguments("key-resolver",
                "#{@blankKeyResolver}", "empty-key-status", "BAD_REQUEST", "redisson-rate-limiter.rate", "5")));
        routes.put("closed", new GatewayApp.Route("/closed/**", arguments("redis-rate-limiter.replenish-rate", "1",
                "redis-rate-limiter.burst-capacity", "0")));
        gateway = GatewayApp.start(Gateway.class, TestRedis.endpoint(), routes);
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    @Test
    void aRejectionIsAProblemWithRetryAfterAndTheHeaders() throws Exception {
        int hits = gateway.backendHits();
        assertThat(gateway.get("/limited/x", "ann").statusCode()).isEqualTo(200);
        HttpResponse<String> rejected = gateway.get("/limited/x", "ann");
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(rejected.headers().firstValue("Retry-After")).hasValueSatisfying(
                seconds -> assertThat(Long.parseLong(seconds)).isBetween(55L, 60L));
        assertThat(rejected.headers().firstValue("RateLimit")).hasValueSatisfying(
                value -> assertThat(value).startsWith("\"limited\";r=0;t="));
        assertThat((Object) JsonPath.read(rejected.body(), "$.status")).isEqualTo(429);
        assertThat((Object) JsonPath.read(rejected.body(), "$.title")).isEqualTo("Too Many Requests");
        assertThat((Object) JsonPath.read(rejected.body(), "$.type")).isEqualTo("about:blank");
        assertThat((Object) JsonPath.read(rejected.body(), "$.instance")).isEqualTo("/limited/x");
        assertThat((String) JsonPath.read(rejected.body(), "$.detail")).isNotBlank().doesNotContain("ann");
        assertThat(gateway.backendHits()).isEqualTo(hits + 1);
    }

    @Test
    void aBlankKeyIsRefusedWithTheEmptyKeyStatusAProblemAndOneLogLine(CapturedOutput output) throws Exception {
        int hits = gateway.backendHits();
        HttpResponse<String> refused = gateway.get("/blank/x", null);
        assertThat(refused.statusCode()).as("the filter's empty-key-status, FORBIDDEN by default").isEqualTo(403);
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat((Object) JsonPath.read(refused.body(), "$.status")).isEqualTo(403);
        assertThat((Object) JsonPath.read(refused.body(), "$.detail"))
                .isEqualTo("The request has no key for the rate limit 'blank'");
        assertThat(output.getOut().lines().filter(line -> line.contains("no key for rate limit 'blank'")))
                .singleElement().satisfies(line -> assertThat(line).contains("WARN", "Answered GET /blank/x with 403"));
        assertThat(output.getOut()).doesNotContain("\tat io.github.redissonratelimit");

        assertThat(gateway.get("/blank-status/x", null).statusCode()).as("the route's empty-key-status")
                .isEqualTo(400);
        assertThat(gateway.backendHits()).isEqualTo(hits);
        assertThat(gateway.get("/blank-open/x", null).statusCode()).as("deny-empty-key: false lets it through")
                .isEqualTo(200);
        assertThat(gateway.backendHits()).isEqualTo(hits + 1);
    }

    @Test
    void anEmptyKeyIsAnsweredAsTheGatewayAnswersIt() throws Exception {
        int hits = gateway.backendHits();
        HttpResponse<String> refused = gateway.get("/limited/x", null);
        assertThat(refused.statusCode()).as("no X-User: the KeyResolver gives no key").isEqualTo(403);
        assertThat(gateway.backendHits()).isEqualTo(hits);
    }

    @Test
    void aSpringCloudGatewayBucketSmallerThanARequestRefusesEveryRequest() throws Exception {
        int hits = gateway.backendHits();
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> refused = gateway.get("/closed/x", "dee");
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat((Object) JsonPath.read(refused.body(), "$.detail"))
                    .isEqualTo("The rate limit 'closed' allows no request");
        }
        assertThat(gateway.backendHits()).isEqualTo(hits);
    }
}
