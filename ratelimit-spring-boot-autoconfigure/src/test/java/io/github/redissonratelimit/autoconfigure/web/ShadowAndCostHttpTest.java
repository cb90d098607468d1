package io.github.redissonratelimit.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.metrics.RateLimitMetricsAutoConfiguration;
import io.github.redissonratelimit.metrics.RateLimitMetrics;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * Over HTTP, on a real Redis: a limit put in shadow mode by its policy never answers 429 and is left out of the
 * rate limit headers, while its metric counts what it would have rejected; a cost the limit cannot take is a 400
 * problem naming the limit, and one WARN line.
 */
@ExtendWith(RealRedisExtension.class)
class ShadowAndCostHttpTest {

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

    private WebApplicationContextRunner runner() {
        return MvcOnRedis.runner(redis, RateLimitMetricsAutoConfiguration.class, MetricsAutoConfiguration.class,
                SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class)
                .withBean(OrdersController.class);
    }

    @RestController
    public static class OrdersController {

        @GetMapping("/search")
        @RateLimit(name = "search-rollout", key = "'rollout:' + #user", rate = 1, interval = 60)
        @RateLimit(name = "search-basic", key = "'basic:' + #user", rate = 100, interval = 60)
        public String search(@RequestParam String user) {
            return "results";
        }

        @PostMapping("/orders/bulk")
        @RateLimit(name = "bulk", key = "'bulk:' + #user", rate = 10, interval = 60, cost = "#count")
        public String bulk(@RequestParam String user, @RequestParam int count) {
            return "accepted " + count;
        }
    }

    @Test
    void aShadowPolicyNeverAnswers429AndLeavesItsLimitOutOfTheHeaders() {
        runner().withPropertyValues("ratelimit.policies.search-rollout.shadow=true").run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            for (int i = 0; i < 3; i++) {
                mvc.perform(get("/search").param("user", "ann"))
                        .andExpect(status().isOk())
                        .andExpect(header().string("RateLimit-Policy", "\"search-basic\";q=100;w=60"))
                        .andExpect(header().string("RateLimit", org.hamcrest.Matchers.matchesPattern(
                                "\"search-basic\";r=" + (99 - i) + ";t=(59|60)")));
            }
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get(RateLimitMetrics.REQUESTS).tag("limit", "search-rollout")
                    .tag("result", "shadow_rejected").counter().count()).isEqualTo(2);
            assertThat(registry.get(RateLimitMetrics.REQUESTS).tag("limit", "search-rollout")
                    .tag("result", "allowed").counter().count()).isEqualTo(1);
            try (RespClient cli = redis.cli()) {
                assertThat(cli.number("ZCARD", "rate_limit:{rollout:ann}:permits")).isEqualTo(1);
            }
            assertThat(log.list).filteredOn(event -> event.getFormattedMessage().startsWith("Shadow limit"))
                    .singleElement().satisfies(event -> assertThat(event.getFormattedMessage())
                            .startsWith("Shadow limit 'search-rollout' would have rejected key 'rollout:ann' "));
        });
        // the same limit enforced
        runner().run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            mvc.perform(get("/search").param("user", "bob")).andExpect(status().isOk());
            mvc.perform(get("/search").param("user", "bob")).andExpect(status().isTooManyRequests());
        });
    }

    @Test
    void aCallRefusedForItsCostAnswersThePermitsLeft() {
        runner().run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            mvc.perform(post("/orders/bulk").param("user", "cy").param("count", "8")).andExpect(status().isOk())
                    .andExpect(header().string("RateLimit", org.hamcrest.Matchers.matchesPattern(
                            "\"bulk\";r=2;t=(59|60)")));
            mvc.perform(post("/orders/bulk").param("user", "cy").param("count", "3"))
                    .andExpect(status().isTooManyRequests())
                    .andExpect(header().string("RateLimit", org.hamcrest.Matchers.matchesPattern(
                            "\"bulk\";r=2;t=(59|60)")));
            mvc.perform(post("/orders/bulk").param("user", "cy").param("count", "1")).andExpect(status().isOk())
                    .andExpect(header().string("RateLimit", org.hamcrest.Matchers.matchesPattern(
                            "\"bulk\";r=1;t=(59|60)")));
        });
    }

    @Test
    void aCallTakesItsCostAndACostTheLimitCannotTakeIsA400NamingTheLimit() {
        runner().run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            log.list.clear(); // what the requests log, not the startup
            mvc.perform(post("/orders/bulk").param("user", "ann").param("count", "3")).andExpect(status().isOk())
                    .andExpect(header().string("RateLimit", org.hamcrest.Matchers.matchesPattern(
                            "\"bulk\";r=7;t=(59|60)")));
            mvc.perform(post("/orders/bulk").param("user", "ann").param("count", "0")).andExpect(status().isOk())
                    .andExpect(header().doesNotExist("RateLimit"));
            String negative = mvc.perform(post("/orders/bulk").param("user", "ann").param("count", "-1"))
                    .andExpect(status().isBadRequest())
                    .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
                    .andExpect(header().doesNotExist("Retry-After"))
                    .andExpect(jsonPath("$.detail").value("The request has a negative cost for the rate limit 'bulk'"))
                    .andExpect(jsonPath("$.instance").value("/orders/bulk"))
                    .andReturn().getResponse().getContentAsString();
            assertThat(negative).doesNotContain("#count", "-1");
            mvc.perform(post("/orders/bulk").param("user", "ann").param("count", "11"))
                    .andExpect(status().isBadRequest())
                    .andExpect(jsonPath("$.detail").value("The request has a cost above the rate for the rate limit "
                            + "'bulk'"));

            List<ILoggingEvent> warnings = log.list.stream()
                    .filter(event -> event.getLevel().isGreaterOrEqual(Level.WARN)).toList();
            assertThat(warnings).hasSize(2).allSatisfy(event -> {
                assertThat(event.getLoggerName()).isEqualTo(RateLimitProblemHandler.class.getName());
                assertThat(event.getThrowableProxy()).isNull();
            });
            assertThat(warnings.get(0).getFormattedMessage()).isEqualTo("Answered POST /orders/bulk with 400: a "
                    + "negative cost for rate limit 'bulk': @RateLimit cost \"#count\" of limit 'bulk' on "
                    + OrdersController.class.getName() + ".bulk(String, int) gave -1, a negative cost");
            assertThat(warnings.get(1).getFormattedMessage()).startsWith("Answered POST /orders/bulk with 400: a cost "
                    + "above the rate for rate limit 'bulk': ").endsWith("gave 11, more than the rate (10 per PT1M): "
                            + "no call of this cost could ever be allowed");
            try (RespClient cli = redis.cli()) {
                // only the call that cost 3 took anything
                assertThat(cli.string("GET", "rate_limit:{bulk:ann}:value")).isEqualTo("7");
                assertThat(cli.number("ZCARD", "rate_limit:{bulk:ann}:permits")).isEqualTo(1);
            }
        });
    }
}
