package io.github.redissonratelimit.autoconfigure.web.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.http.codec.CodecsAutoConfiguration;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.boot.autoconfigure.web.reactive.WebFluxAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/** A WebFlux application: the same 429 problem response and headers as Spring MVC. */
@ExtendWith(RealRedisExtension.class)
class RateLimitWebFluxTest {

    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    private ReactiveWebApplicationContextRunner runner() {
        return new ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                        RateLimitWebFluxAutoConfiguration.class, AopAutoConfiguration.class,
                        WebFluxAutoConfiguration.class, JacksonAutoConfiguration.class, CodecsAutoConfiguration.class))
                .withBean(RedissonClient.class, redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown"))
                .withBean(PricesController.class);
    }

    @RestController
    public static class PricesController {

        @GetMapping("/prices")
        @RateLimit(key = "'prices:' + #user", rate = 2, interval = 60, message = "Two price checks a minute")
        public Mono<String> prices(@RequestParam String user) {
            return Mono.just("prices");
        }

        @GetMapping("/ticks")
        @RateLimit(name = "ticks-burst", key = "'ticks-burst:' + #user", rate = 3, interval = 10)
        @RateLimit(name = "ticks-hourly", key = "'ticks-hourly:' + #user", rate = 1, interval = 1, unit = TimeUnit.HOURS)
        public Flux<String> ticks(@RequestParam String user) {
            return Flux.just("a", "b");
        }

        @GetMapping("/fallback")
        @RateLimit(key = "'fb:' + #user", rate = 1, interval = 60, waitTimeout = "100ms", fallback = "later")
        public Mono<String> withFallback(@RequestParam String user) {
            return Mono.just("now");
        }

        Mono<String> later(String user) {
            return Mono.just("later");
        }

        @GetMapping("/blocking")
        @RateLimit(key = "'blocking:' + #user", rate = 1, interval = 60)
        public String blocking(@RequestParam String user) {
            return "blocking";
        }
    }

    private static WebTestClient client(org.springframework.context.ApplicationContext context) {
        return WebTestClient.bindToApplicationContext(context).build();
    }

    @Test
    void aRejectedReactiveCallIs429WithProblemDetailRetryAfterAndHeaders() {
        runner().run(context -> {
            WebTestClient client = client(context);
            for (int i = 0; i < 2; i++) {
                client.get().uri("/prices?user=ann").exchange()
                        .expectStatus().isOk()
                        .expectHeader().valueEquals("RateLimit-Policy", "\"PricesController.prices\";q=2;w=60")
                        .expectHeader().valueMatches("RateLimit", "\"PricesController\\.prices\";r=" + (1 - i) + ";t=(59|60)")
                        .expectBody(String.class).isEqualTo("prices");
            }
            client.get().uri("/prices?user=ann").exchange()
                    .expectStatus().isEqualTo(429)
                    .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                    .expectHeader().value("Retry-After", value -> assertThat(Long.parseLong(value)).isBetween(55L, 60L))
                    .expectHeader().valueEquals("RateLimit-Policy", "\"PricesController.prices\";q=2;w=60")
                    .expectHeader().valueMatches("RateLimit", "\"PricesController\\.prices\";r=0;t=(5[5-9]|60)")
                    .expectBody()
                    .jsonPath("$.status").isEqualTo(429)
                    .jsonPath("$.title").isEqualTo("Too Many Requests")
                    .jsonPath("$.detail").isEqualTo("Two price checks a minute")
                    .jsonPath("$.instance").isEqualTo("/prices");
            client.get().uri("/prices?user=bob").exchange().expectStatus().isOk();
        });
    }

    @Test
    void remainingPermitsAreReportedWithoutBlocking() {
        runner().run(context -> {
            WebTestClient client = client(context);
            client.get().uri("/ticks?user=cy").exchange()
                    .expectStatus().isOk()
                    .expectHeader().valueEquals("RateLimit-Policy", "\"ticks-burst\";q=3;w=10, \"ticks-hourly\";q=1;w=3600")
                    .expectHeader().valueMatches("RateLimit", "\"ticks-burst\";r=2;t=(9|10), \"ticks-hourly\";r=0;t=3[56]\\d\\d")
                    .expectBody(String.class).isEqualTo("ab");
            // rejected by the hourly limit: the burst permit it took was given back
            client.get().uri("/ticks?user=cy").exchange()
                    .expectStatus().isEqualTo(429)
                    .expectHeader().valueMatches("RateLimit", "\"ticks-burst\";r=2;t=(9|10), \"ticks-hourly\";r=0;t=3[56]\\d\\d");
        });
    }

    @Test
    void aFallbackAnswersAfterTheWaitRunsOut() {
        runner().run(context -> {
            WebTestClient client = client(context);
            client.get().uri("/fallback?user=dee").exchange().expectBody(String.class).isEqualTo("now");
            client.get().uri("/fallback?user=dee").exchange()
                    .expectStatus().isOk()
                    .expectHeader().valueMatches("RateLimit", "\"PricesController\\.withFallback\";r=0;t=\\d+")
                    .expectBody(String.class).isEqualTo("later");
        });
    }

    @Test
    void aBlockingMethodIsLimitedTooAndItsRejectionReported() {
        runner().run(context -> {
            WebTestClient client = client(context);
            client.get().uri("/blocking?user=eve").exchange().expectStatus().isOk();
            client.get().uri("/blocking?user=eve").exchange()
                    .expectStatus().isEqualTo(429)
                    .expectHeader().exists("Retry-After")
                    .expectHeader().valueMatches("RateLimit", "\"PricesController\\.blocking\";r=0;t=\\d+");
        });
    }

    @Test
    void disabledHeaders() {
        runner().withPropertyValues("ratelimit.headers.enabled=false").run(context -> {
            WebTestClient client = client(context);
            client.get().uri("/prices?user=fay").exchange().expectHeader().doesNotExist("RateLimit-Policy");
        });
    }
}
