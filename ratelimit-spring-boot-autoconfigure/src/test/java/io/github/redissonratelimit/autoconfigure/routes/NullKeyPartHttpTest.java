package io.github.redissonratelimit.autoconfigure.routes;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.Map;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.test.redis.FreshRedis;
import reactor.core.publisher.Mono;

/**
 * A null part anywhere in a key is a missing key, over real HTTP on Spring MVC and WebFlux and a real Redis: a route
 * keyed {@code param['user'] + ':' + remoteAddress} without {@code user}, and {@code @RateLimit} keys
 * {@code 'order:' + #user} without {@code user} (a blocking and a {@code Mono} method), answer 400 with the problem
 * of a missing key and one log line, and count nothing; a user named {@code nullable} is limited as any other.
 */
@ExtendWith(OutputCaptureExtension.class)
class NullKeyPartHttpTest {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final HttpApps apps = new HttpApps(fresh.endpoint());
    private final ObjectMapper json = new ObjectMapper();

    @RestController
    public static class Shop {

        @GetMapping("/search")
        public String search() {
            return "results";
        }

        @GetMapping("/orders")
        @RateLimit(name = "orders", key = "'order:' + #user", rate = 5, interval = 60)
        public String orders(@RequestParam(required = false) String user) {
            return "orders";
        }

        @GetMapping("/orders-reactive")
        @RateLimit(name = "orders-reactive", key = "'order:' + #user", rate = 5, interval = 60)
        public Mono<String> ordersReactive(@RequestParam(required = false) String user) {
            return Mono.just("orders");
        }
    }

    private ConfigurableApplicationContext start(WebApplicationType type) {
        return apps.start(type, Shop.class, "ratelimit.routes.search.paths=/search",
                "ratelimit.routes.search.key=param['user'] + ':' + remoteAddress", "ratelimit.routes.search.rate=5",
                "ratelimit.routes.search.interval=60s");
    }

    private void assertMissingKey(HttpResponse<String> response, String limit) throws Exception {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(json.readValue(response.body(), new TypeReference<Map<String, Object>>() { }))
                .containsEntry("status", 400)
                .containsEntry("detail", "The request has no valid key for the rate limit '" + limit + "'");
    }

    @ParameterizedTest
    @EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
    void aMissingValueInAKeyIsA400AndCountsNothing(WebApplicationType type, CapturedOutput output) throws Exception {
        try (ConfigurableApplicationContext context = start(type)) {
            assertMissingKey(apps.send(context, "GET", "/search"), "search");
            assertMissingKey(apps.send(context, "GET", "/orders"), "orders");
            assertMissingKey(apps.send(context, "GET", "/orders-reactive"), "orders-reactive");
            assertThat(fresh.endpoint().keys("rate_limit:*")).as("no limiter for a key with a null part").isEmpty();

            assertThat(output.getAll().lines().filter(line -> line.contains("Answered GET /search with 400")))
                    .singleElement().satisfies(line -> assertThat(line).contains("no key for rate limit 'search'",
                            "has a null part: param['user'] is null"));
            assertThat(output.getAll().lines().filter(line -> line.contains("Answered GET /orders with 400")))
                    .singleElement().satisfies(line -> assertThat(line).contains("#user is null"));
            assertThat(output.getAll().lines().filter(line -> line.contains("Answered GET /orders-reactive with 400")))
                    .hasSize(1);
            assertThat(output.getAll()).doesNotContain("RateLimitKeyException:");
        }
    }

    @ParameterizedTest
    @EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
    void aKeyThatReallyHoldsTheTextNullIsLimited(WebApplicationType type) throws Exception {
        try (ConfigurableApplicationContext context = start(type)) {
            for (int i = 0; i < 2; i++) {
                HttpResponse<String> search = apps.send(context, "GET", "/search?user=nullable");
                assertThat(search.statusCode()).isEqualTo(200);
                int left = 4 - i;
                assertThat(search.headers().firstValue("RateLimit")).hasValueSatisfying(
                        value -> assertThat(value).startsWith("\"search\";r=" + left + ";"));
            }
            assertThat(apps.send(context, "GET", "/orders?user=nullable").statusCode()).isEqualTo(200);
            assertThat(apps.send(context, "GET", "/orders-reactive?user=null").statusCode()).isEqualTo(200);
            assertThat(apps.free("order:nullable")).isEqualTo(4L);
            assertThat(apps.free("order:null")).as("a user named null").isEqualTo(4L);
        }
    }
}
