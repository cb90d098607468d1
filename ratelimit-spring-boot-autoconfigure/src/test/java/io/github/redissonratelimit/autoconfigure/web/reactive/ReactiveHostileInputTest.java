package io.github.redissonratelimit.autoconfigure.web.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.slf4j.LoggerFactory;
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
import reactor.core.publisher.Mono;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * WebFlux answers a key that cannot be computed, or a condition that cannot be evaluated, as Spring MVC does: 400,
 * a problem naming the limit, one WARN line.
 */
@ExtendWith(RealRedisExtension.class)
class ReactiveHostileInputTest {

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
        log.start();
        root.addAppender(log);
    }

    @AfterEach
    void tearDown() {
        root.detachAppender(log);
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
        @RateLimit(name = "prices", key = "'prices:' + #user", rate = 2, interval = 60)
        public Mono<String> prices(@RequestParam(required = false) String user) {
            return Mono.just("prices");
        }

        @GetMapping("/blocking")
        @RateLimit(key = "#user", rate = 2, interval = 60)
        public String blocking(@RequestParam(required = false) String user) {
            return "blocking";
        }

        @GetMapping("/quotes")
        @RateLimit(key = "'quotes:' + #user", rate = 2, interval = 60, condition = "#region.isEmpty() == false")
        public Mono<String> quotes(@RequestParam String user, @RequestParam(required = false) String region) {
            return Mono.just("quotes");
        }

        @GetMapping("/stock")
        @RateLimit(key = "'stock:' + #user", rate = 2, interval = 60, skipIf = "#internal")
        public String stock(@RequestParam String user, @RequestParam String internal) {
            return "stock";
        }
    }

    /** A 400 problem without {@code Retry-After}, naming what {@code detail} says. */
    private static void expectBadRequestProblem(WebTestClient.ResponseSpec response, String detail, String path) {
        response.expectStatus().isBadRequest()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                .expectHeader().doesNotExist("Retry-After")
                .expectBody()
                .jsonPath("$.status").isEqualTo(400)
                .jsonPath("$.title").isEqualTo("Bad Request")
                .jsonPath("$.detail").isEqualTo(detail)
                .jsonPath("$.instance").isEqualTo(path);
    }

    /**
     * The lines logged at WARN or above: {@code expected} of them, each one WARN line of the problem handler without a
     * stack trace, holding none of {@code neverInALine}.
     */
    private List<String> warnLines(int expected, String... neverInALine) {
        assertThat(log.list).filteredOn(event -> event.getLevel().isGreaterOrEqual(Level.WARN)).hasSize(expected)
                .allSatisfy(event -> {
                    assertThat(event.getLevel()).isEqualTo(Level.WARN);
                    assertThat(event.getLoggerName()).isEqualTo(ReactiveRateLimitProblemHandler.class.getName());
                    assertThat(event.getThrowableProxy()).isNull();
                    assertThat(event.getFormattedMessage()).doesNotContain(neverInALine).hasSizeLessThan(1_200);
                });
        return log.list.stream().filter(event -> event.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    @Test
    void aKeyThatCannotBeComputedIsA400NamingTheLimit() {
        String huge = "u".repeat(100_000);
        runner().run(context -> {
            WebTestClient client = WebTestClient.bindToApplicationContext(context).build();
            log.list.clear();
            expectBadRequestProblem(client.get().uri(builder -> builder.path("/prices").queryParam("user", huge).build())
                    .exchange(), "The request has no valid key for the rate limit 'prices'", "/prices");
            client.get().uri("/blocking").exchange()
                    .expectStatus().isBadRequest()
                    .expectBody()
                    .jsonPath("$.detail").isEqualTo("The request has no valid key for the rate limit 'PricesController.blocking'");
            client.get().uri("/prices?user=ann").exchange().expectStatus().isOk();

            assertThat(warnLines(2, "uuuu", "\n").get(0))
                    .startsWith("Answered GET /prices with 400: no key for rate limit 'prices': ").contains("EL1078E");
        });
    }

    @Test
    void aConditionThatCannotBeEvaluatedIsA400NamingTheLimit() {
        runner().run(context -> {
            WebTestClient client = WebTestClient.bindToApplicationContext(context).build();
            log.list.clear();
            expectBadRequestProblem(client.get().uri("/quotes?user=ann").exchange(),
                    "The rate limit on 'PricesController.quotes' cannot decide whether it applies to the request", "/quotes");
            expectBadRequestProblem(client.get().uri(builder -> builder.path("/stock").queryParam("user", "ann")
                            .queryParam("internal", "maybe\u202E").build()).exchange(),
                    "The rate limit on 'PricesController.stock' cannot decide whether it applies to the request", "/stock");
            client.get().uri("/quotes?user=ann&region=eu").exchange().expectStatus().isOk();
            client.get().uri("/stock?user=ann&internal=false").exchange().expectStatus().isOk();

            assertThat(warnLines(2, "\n", "\u202E"))
                    .satisfiesExactly(
                            line -> assertThat(line).startsWith("Answered GET /quotes with 400: @RateLimit condition ")
                                    .contains("PricesController.quotes(String, String) failed: "),
                            line -> assertThat(line).startsWith("Answered GET /stock with 400: @RateLimit skipIf ")
                                    .contains("gave String 'maybe\\u202E' instead of true or false"));
        });
    }
}
