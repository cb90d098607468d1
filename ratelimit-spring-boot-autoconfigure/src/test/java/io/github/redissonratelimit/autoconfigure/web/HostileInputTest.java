package io.github.redissonratelimit.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

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
import org.springframework.boot.autoconfigure.http.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.WebMvcAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultMatcher;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * Input meant to break things: a key the expression cannot compute, or a condition it cannot evaluate, is a 400
 * problem naming the limit and one WARN line (never a 500 with a stack trace), and what the input puts in a key
 * cannot forge log lines.
 */
@ExtendWith(RealRedisExtension.class)
class HostileInputTest {

    private static final String FORGED = "x\n2026-12-03T10:00:00.000Z ERROR 4242 --- [main] c.e.Payments : FORGED";

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final List<Logger> debugged = List.of((Logger) LoggerFactory.getLogger(RateLimitProblemHandler.class),
            (Logger) LoggerFactory.getLogger(RateLimitInterceptor.class));
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
        debugged.forEach(logger -> logger.setLevel(null));
    }

    private WebApplicationContextRunner runner() {
        return new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                        RateLimitWebMvcAutoConfiguration.class, AopAutoConfiguration.class,
                        WebMvcAutoConfiguration.class, JacksonAutoConfiguration.class,
                        HttpMessageConvertersAutoConfiguration.class))
                .withBean(RedissonClient.class, redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown"))
                .withBean(OrdersController.class)
                // these tests count rejections: a decision that a loaded build machine delays past the default 100 ms
                // deadline would pass under on-backend-error=allow instead of being rejected
                .withPropertyValues("ratelimit.backend-timeout=5s");
    }

    @RestController
    public static class OrdersController {

        @PostMapping("/orders/submit")
        @RateLimit(name = "order-submit", key = "'order:submit:' + #userId", rate = 1, interval = 60)
        public String submit(@RequestParam String userId) {
            return "accepted";
        }

        @PostMapping("/orders/track")
        @RateLimit(key = "#userId", rate = 5, interval = 60)
        public String track(@RequestParam(required = false) String userId) {
            return "tracked";
        }

        @PostMapping("/orders/quote")
        @RateLimit(key = "'quote:' + #userId", rate = 1, interval = 60, fallback = "later")
        public String quote(@RequestParam String userId) {
            return "quoted";
        }

        String later(String userId, RateLimitExceededException rejection) {
            return "later";
        }

        private final AtomicInteger conditionalCalls = new AtomicInteger();

        /** A method, not the field: the bean is a class proxy, whose own fields are not the target's. */
        public int conditionalCalls() {
            return conditionalCalls.get();
        }

        @PostMapping("/orders/cancel")
        @RateLimit(key = "#userId", rate = 5, interval = 60, condition = "#reason.length() > 0")
        public String cancel(@RequestParam String userId, @RequestParam(required = false) String reason) {
            conditionalCalls.incrementAndGet();
            return "cancelled";
        }

        @PostMapping("/orders/export")
        @RateLimit(key = "#userId", rate = 5, interval = 60, skipIf = "#internal")
        public String export(@RequestParam String userId, @RequestParam String internal) {
            conditionalCalls.incrementAndGet();
            return "exported";
        }
    }

    /** A 400 problem without {@code Retry-After}, naming what {@code detail} says. */
    private static ResultMatcher badRequestProblem(String detail, String path) {
        return ResultMatcher.matchAll(status().isBadRequest(),
                content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON),
                header().doesNotExist("Retry-After"),
                jsonPath("$.type").value("about:blank"),
                jsonPath("$.title").value("Bad Request"),
                jsonPath("$.status").value(400),
                jsonPath("$.detail").value(detail),
                jsonPath("$.instance").value(path));
    }

    private List<ILoggingEvent> events(Level atLeast) {
        return log.list.stream().filter(event -> event.getLevel().isGreaterOrEqual(atLeast)).toList();
    }

    @Test
    void aKeyTooLongForTheExpressionIsA400NamingTheLimitAndOneWarnLine() {
        String huge = "u".repeat(100_000);
        runner().run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            log.list.clear(); // what the requests log, not the startup
            String body = mvc.perform(post("/orders/submit").contentType(MediaType.APPLICATION_FORM_URLENCODED)
                            .content("userId=" + huge))
                    .andExpect(badRequestProblem("The request has no valid key for the rate limit 'order-submit'",
                            "/orders/submit"))
                    .andReturn().getResponse().getContentAsString();
            assertThat(body).doesNotContain("uuuu", "userId", "EL1078E");

            assertThat(events(Level.WARN)).singleElement().satisfies(event -> {
                assertThat(event.getLevel()).isEqualTo(Level.WARN);
                assertThat(event.getLoggerName()).isEqualTo(RateLimitProblemHandler.class.getName());
                assertThat(event.getThrowableProxy()).isNull();
                assertThat(event.getFormattedMessage())
                        .startsWith("Answered POST /orders/submit with 400: no key for rate limit 'order-submit': ")
                        .contains("EL1078E", "'order:submit:' + #userId")
                        .doesNotContain("uuuu", "\n", "\r")
                        .hasSizeLessThan(1_200);
            });
            // the call was not made, and no limiter was created
            assertThat(redis.keys("rate_limit:*")).isEmpty();
        });
    }

    @Test
    void aMissingOrBlankKeyIsA400Too() {
        runner().run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            log.list.clear(); // what the requests log, not the startup
            mvc.perform(post("/orders/track"))
                    .andExpect(status().isBadRequest())
                    .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
                    .andExpect(jsonPath("$.detail")
                            .value("The request has no valid key for the rate limit 'OrdersController.track'"));
            mvc.perform(post("/orders/track").param("userId", " \t "))
                    .andExpect(status().isBadRequest());
            mvc.perform(post("/orders/track").param("userId", "7")).andExpect(status().isOk());

            assertThat(events(Level.WARN)).hasSize(2).allSatisfy(event -> {
                assertThat(event.getThrowableProxy()).isNull();
                assertThat(event.getFormattedMessage()).contains("HostileInputTest$OrdersController.track");
            });
            assertThat(events(Level.WARN).get(0).getFormattedMessage()).contains("evaluated to null");
            assertThat(events(Level.WARN).get(1).getFormattedMessage()).contains("evaluated to an empty key");
        });
    }

    @Test
    void whatTheInputPutsInAKeyCannotForgeALogLine() {
        debugged.forEach(logger -> logger.setLevel(Level.DEBUG));
        runner().run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            log.list.clear(); // what the requests log, not the startup
            // the form body as a client sends it: userId=x%0A2026-... ERROR ... FORGED
            String form = "userId=" + java.net.URLEncoder.encode(FORGED, java.nio.charset.StandardCharsets.UTF_8);
            assertThat(form).startsWith("userId=x%0A2026-");
            for (int i = 0; i < 2; i++) {
                mvc.perform(post("/orders/submit").contentType(MediaType.APPLICATION_FORM_URLENCODED).content(form));
            }
            mvc.perform(post("/orders/submit").contentType(MediaType.APPLICATION_FORM_URLENCODED).content(form))
                    .andExpect(status().isTooManyRequests());
            String bidi = "\u202Egnp.exe\u001B[2J\u0085";
            for (int i = 0; i < 2; i++) {
                mvc.perform(post("/orders/quote").param("userId", bidi)).andExpect(status().isOk());
            }

            List<String> lines = log.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
            assertThat(lines).allSatisfy(line -> assertThat(line).doesNotContain("\n", "\r", "\u202E", "\u001B",
                    "\u0085"));
            assertThat(lines).filteredOn(line -> line.startsWith("Rejected POST /orders/submit")).hasSize(2)
                    .allSatisfy(line -> assertThat(line).contains(
                            "key order:submit:x\\n2026-12-03T10:00:00.000Z ERROR 4242 --- [main] c.e.Payments : FORGED"));
            assertThat(lines).filteredOn(line -> line.startsWith("Calling fallback")).singleElement()
                    .satisfies(line -> assertThat(line).contains("key quote:\\u202Egnp.exe\\u001B[2J\\u0085"));
            assertThat(events(Level.ERROR)).isEmpty();

            // and in Redis, the limiter names carry them percent-encoded
            assertThat(redis.keys("rate_limit:*")).contains("rate_limit:{order:submit:x%0A2026-12-03T10:00:00.000Z%20"
                    + "ERROR%204242%20---%20[main]%20c.e.Payments%20:%20FORGED}",
                    "rate_limit:{quote:%E2%80%AEgnp.exe%1B[2J%C2%85}");
        });
    }

    @Test
    void aConditionThatCannotBeEvaluatedIsA400NamingTheLimitAndOneWarnLine() {
        runner().run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            log.list.clear(); // what the requests log, not the startup
            // no reason: "#reason.length() > 0" fails on null (SpEL EL1011E)
            String failed = mvc.perform(post("/orders/cancel").param("userId", "7"))
                    .andExpect(badRequestProblem(
                            "The rate limit on 'OrdersController.cancel' cannot decide whether it applies to the request",
                            "/orders/cancel"))
                    .andReturn().getResponse().getContentAsString();
            assertThat(failed).doesNotContain("#reason", "EL1011E", "userId");
            // skipIf gives the (forging) input itself, not true or false
            String notBoolean = mvc.perform(post("/orders/export").param("userId", "7").param("internal", FORGED))
                    .andExpect(badRequestProblem(
                            "The rate limit on 'OrdersController.export' cannot decide whether it applies to the request",
                            "/orders/export"))
                    .andReturn().getResponse().getContentAsString();
            assertThat(notBoolean).doesNotContain("FORGED", "#internal");
            // the same limits decide normally when their conditions can be evaluated
            mvc.perform(post("/orders/cancel").param("userId", "7").param("reason", "late")).andExpect(status().isOk());
            mvc.perform(post("/orders/export").param("userId", "8").param("internal", "true")).andExpect(status().isOk());
            assertThat(context.getBean(OrdersController.class).conditionalCalls()).isEqualTo(2);

            assertThat(events(Level.WARN)).hasSize(2).allSatisfy(event -> {
                assertThat(event.getLevel()).isEqualTo(Level.WARN);
                assertThat(event.getLoggerName()).isEqualTo(RateLimitProblemHandler.class.getName());
                assertThat(event.getThrowableProxy()).isNull();
                assertThat(event.getFormattedMessage()).doesNotContain("\n", "\r").hasSizeLessThan(1_200);
            });
            assertThat(events(Level.WARN).get(0).getFormattedMessage())
                    .startsWith("Answered POST /orders/cancel with 400: @RateLimit condition \"#reason.length() > 0\" on ")
                    .contains("HostileInputTest$OrdersController.cancel(String, String) failed: ", "EL1011E");
            assertThat(events(Level.WARN).get(1).getFormattedMessage())
                    .startsWith("Answered POST /orders/export with 400: @RateLimit skipIf \"#internal\" on ")
                    .contains("gave String 'x\\n2026-12-03T10:00:00.000Z ERROR 4242", "instead of true or false");
            assertThat(events(Level.ERROR)).isEmpty();
            // only the admitted cancel reached Redis (the skipped export did not)
            assertThat(redis.keys("rate_limit:*")).isNotEmpty().allSatisfy(key -> assertThat(key).contains("{7}"));
        });
    }
}
