package io.github.redissonratelimit.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.asyncDispatch;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.request;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.http.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.WebMvcAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.admin.RateLimiters;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/** Rate limit headers of Spring MVC responses, on a real Redis. */
class ServletRateLimitHeadersTest {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();

    private WebApplicationContextRunner runner() {
        return new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                        RateLimitWebMvcAutoConfiguration.class, AopAutoConfiguration.class,
                        WebMvcAutoConfiguration.class, JacksonAutoConfiguration.class,
                        HttpMessageConvertersAutoConfiguration.class))
                // the headers count Redis's answers: a first decision of a loaded machine past the 100 ms default
                // would be decided in memory by the outage policy
                .withPropertyValues("ratelimit.backend-timeout=5s")
                .withBean(RedissonClient.class, redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown"))
                .withBean(SearchController.class)
                .withBean(ReportService.class);
    }

    @RestController
    public static class SearchController {

        @GetMapping("/search")
        @RateLimit(key = "'search:' + #user", rate = 2, interval = 60, message = "Two searches a minute")
        public String search(@RequestParam String user) {
            return "results";
        }

        @GetMapping("/export")
        @RateLimit(name = "export-burst", key = "'export-burst:' + #user", rate = 3, interval = 10)
        @RateLimit(name = "export-daily", key = "'export-daily:' + #user", rate = 2, interval = 1, unit = TimeUnit.DAYS)
        public String export(@RequestParam String user) {
            return "export";
        }

        @GetMapping("/quote")
        @RateLimit(key = "'quote:' + #symbol", rate = 1, interval = 60, fallback = "cachedQuote")
        public String quote(@RequestParam String symbol) {
            return "live";
        }

        String cachedQuote(String symbol) {
            return "cached";
        }

        @GetMapping("/async")
        @RateLimit(key = "'async:' + #user", rate = 1, interval = 60)
        public CompletableFuture<String> async(@RequestParam String user) {
            return CompletableFuture.completedFuture("async");
        }

        @GetMapping("/reports")
        @RateLimit(key = "'reports:' + #user", rate = 1, interval = 60, skipIf = "#user == 'admin'")
        public String reports(@RequestParam String user) {
            return "reports";
        }

        @GetMapping("/patient")
        @RateLimit(key = "'patient:' + #user", rate = 1, interval = 1, waitTimeout = "5s")
        public String patient(@RequestParam String user) {
            return "patient";
        }

        @GetMapping("/short")
        @RateLimit(key = "'short:' + #user", rate = 5, window = "1500ms")
        public String shortWindow(@RequestParam String user) {
            return "short";
        }
    }

    /** A service a scheduler calls, outside any request. */
    public static class ReportService {
        @RateLimit(name = "nightly-report", rate = 1, interval = 60)
        public String run() {
            return "report";
        }
    }

    @Test
    void allowedResponsesCarryThePolicyAndRejectionsTheRetryTimeAsOfTheDraft() {
        runner().run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            mvc.perform(get("/search").param("user", "ann"))
                    .andExpect(status().isOk())
                    .andExpect(header().string("RateLimit-Policy", "\"SearchController.search\";q=2;w=60"))
                    .andExpect(header().string("RateLimit", org.hamcrest.Matchers.matchesPattern(
                            "\"SearchController\\.search\";r=1;t=(59|60)")));
            mvc.perform(get("/search").param("user", "ann")).andExpect(status().isOk());

            MvcResult rejected = mvc.perform(get("/search").param("user", "ann"))
                    .andExpect(status().isTooManyRequests())
                    .andExpect(header().string("RateLimit-Policy", "\"SearchController.search\";q=2;w=60"))
                    .andExpect(header().string("RateLimit", org.hamcrest.Matchers.matchesPattern(
                            "\"SearchController\\.search\";r=0;t=(5[5-9]|60)")))
                    .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
                    .andExpect(jsonPath("$.detail").value("Two searches a minute"))
                    .andReturn();
            long t = Long.parseLong(rejected.getResponse().getHeader("RateLimit").replaceAll(".*;t=", ""));
            long retryAfter = Long.parseLong(rejected.getResponse().getHeader("Retry-After"));
            assertThat(retryAfter).isGreaterThanOrEqualTo(t);
            assertThat(rejected.getResponse().getHeaders("RateLimit")).as("written once").hasSize(1);
            assertThat(rejected.getResponse().getHeaders("Retry-After")).hasSize(1);
        });
    }

    @Test
    void remainingPermitsAreReportedWhenTurnedOn() {
        runner().withPropertyValues("ratelimit.headers.remaining=true").run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            mvc.perform(get("/search").param("user", "bob"))
                    .andExpect(header().string("RateLimit", org.hamcrest.Matchers.matchesPattern(
                            "\"SearchController\\.search\";r=1;t=(59|60)")));
            mvc.perform(get("/search").param("user", "bob"))
                    .andExpect(header().string("RateLimit", org.hamcrest.Matchers.matchesPattern(
                            "\"SearchController\\.search\";r=0;t=(59|60)")));
            mvc.perform(get("/search").param("user", "bob")).andExpect(status().isTooManyRequests())
                    .andExpect(header().string("RateLimit", org.hamcrest.Matchers.startsWith(
                            "\"SearchController.search\";r=0;t=")));
        });
    }

    /** The policy item is rendered once per limit and spec: an override (and its removal) shows at once. */
    @Test
    void anOverrideShowsInTheNextResponsesPolicyAndItsRemovalToo() {
        runner().withPropertyValues("ratelimit.headers.remaining=true").run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            RateLimiters limiters = context.getBean(RateLimiters.class);
            mvc.perform(get("/export").param("user", "ov"))
                    .andExpect(header().string("RateLimit-Policy",
                            "\"export-burst\";q=3;w=10, \"export-daily\";q=2;w=86400"));

            limiters.override("export-burst", 5, Duration.ofSeconds(20), null);
            mvc.perform(get("/export").param("user", "ov"))
                    .andExpect(status().isOk())
                    .andExpect(header().string("RateLimit-Policy",
                            "\"export-burst\";q=5;w=20, \"export-daily\";q=2;w=86400"))
                    .andExpect(header().string("RateLimit", org.hamcrest.Matchers.matchesPattern(
                            "\"export-burst\";r=3;t=\\d+, \"export-daily\";r=0;t=864\\d\\d")));

            limiters.clearOverride("export-burst");
            mvc.perform(get("/export").param("user", "ov"))
                    .andExpect(status().isTooManyRequests())
                    .andExpect(header().string("RateLimit-Policy",
                            "\"export-burst\";q=3;w=10, \"export-daily\";q=2;w=86400"));
        });
    }

    @Test
    void eachLimitOfAMethodIsReportedAndARejectedCallConsumesNoneOfThem() {
        runner().withPropertyValues("ratelimit.headers.remaining=true").run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            mvc.perform(get("/export").param("user", "cy"))
                    .andExpect(header().string("RateLimit-Policy",
                            "\"export-burst\";q=3;w=10, \"export-daily\";q=2;w=86400"))
                    .andExpect(header().string("RateLimit", org.hamcrest.Matchers.matchesPattern(
                            "\"export-burst\";r=2;t=(9|10), \"export-daily\";r=1;t=864\\d\\d")));
            mvc.perform(get("/export").param("user", "cy")).andExpect(status().isOk());
            for (int i = 0; i < 3; i++) {
                mvc.perform(get("/export").param("user", "cy"))
                        .andExpect(status().isTooManyRequests())
                        .andExpect(header().string("RateLimit", org.hamcrest.Matchers.matchesPattern(
                                "\"export-burst\";r=1;t=(9|10), \"export-daily\";r=0;t=864\\d\\d")));
            }
        });
    }

    @Test
    void legacyHeadersReportTheTightestLimit() {
        runner().withPropertyValues("ratelimit.headers.style=legacy", "ratelimit.headers.remaining=true").run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            mvc.perform(get("/export").param("user", "dee"))
                    .andExpect(header().string("X-RateLimit-Limit", "2"))
                    .andExpect(header().string("X-RateLimit-Remaining", "1"))
                    .andExpect(header().string("X-RateLimit-Reset", org.hamcrest.Matchers.matchesPattern("864\\d\\d")))
                    .andExpect(header().doesNotExist("RateLimit-Policy"));
            mvc.perform(get("/search").param("user", "dee")).andExpect(header().string("X-RateLimit-Remaining", "1"));
            mvc.perform(get("/search").param("user", "dee")).andExpect(header().string("X-RateLimit-Remaining", "0"));
            mvc.perform(get("/search").param("user", "dee"))
                    .andExpect(status().isTooManyRequests())
                    .andExpect(header().string("X-RateLimit-Limit", "2"))
                    .andExpect(header().string("X-RateLimit-Remaining", "0"))
                    .andExpect(header().string("X-RateLimit-Reset", org.hamcrest.Matchers.matchesPattern("5[5-9]|60")));
        });
    }

    @Test
    void headerNamesComeFromProperties() {
        runner().withPropertyValues("ratelimit.headers.policy-header=X-Quota-Policy",
                "ratelimit.headers.limit-header=X-Quota").run(context -> {
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
                    for (int i = 0; i < 2; i++) {
                        mvc.perform(get("/search").param("user", "eve"))
                                .andExpect(header().string("X-Quota-Policy", "\"SearchController.search\";q=2;w=60"));
                    }
                    mvc.perform(get("/search").param("user", "eve"))
                            .andExpect(header().string("X-Quota", org.hamcrest.Matchers.startsWith("\"SearchController.search\";r=0;t=")))
                            .andExpect(header().doesNotExist("RateLimit"));
                });
    }

    @Test
    void disabledHeadersLeaveOnlyRetryAfter() {
        runner().withPropertyValues("ratelimit.headers.enabled=false").run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            mvc.perform(get("/search").param("user", "fay")).andExpect(header().doesNotExist("RateLimit-Policy"));
            mvc.perform(get("/search").param("user", "fay"));
            mvc.perform(get("/search").param("user", "fay")).andExpect(status().isTooManyRequests())
                    .andExpect(header().exists("Retry-After"))
                    .andExpect(header().doesNotExist("RateLimit"));
        });
    }

    @Test
    void aFallbackAnswersWithTheRejectionInTheHeaders() {
        runner().run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            mvc.perform(get("/quote").param("symbol", "ACME")).andExpect(content().string("live"));
            mvc.perform(get("/quote").param("symbol", "ACME"))
                    .andExpect(status().isOk())
                    .andExpect(content().string("cached"))
                    .andExpect(header().string("RateLimit", org.hamcrest.Matchers.startsWith("\"SearchController.quote\";r=0;t=")))
                    .andExpect(header().doesNotExist("Retry-After"));
        });
    }

    @Test
    void aCompletableFutureRejectionIsA429WithItsHeaders() {
        runner().run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            MvcResult first = mvc.perform(get("/async").param("user", "gus")).andExpect(request().asyncStarted()).andReturn();
            mvc.perform(asyncDispatch(first)).andExpect(status().isOk()).andExpect(content().string("async"));

            MvcResult second = mvc.perform(get("/async").param("user", "gus")).andExpect(request().asyncStarted()).andReturn();
            mvc.perform(asyncDispatch(second))
                    .andExpect(status().isTooManyRequests())
                    .andExpect(header().exists("Retry-After"))
                    .andExpect(header().string("RateLimit", org.hamcrest.Matchers.startsWith("\"SearchController.async\";r=0;t=")))
                    .andExpect(header().string("RateLimit-Policy", "\"SearchController.async\";q=1;w=60"));
        });
    }

    @Test
    void skippedCallsAreNeitherLimitedNorReported() {
        runner().run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            for (int i = 0; i < 3; i++) {
                mvc.perform(get("/reports").param("user", "admin"))
                        .andExpect(status().isOk())
                        .andExpect(header().doesNotExist("RateLimit-Policy"));
            }
            mvc.perform(get("/reports").param("user", "jo")).andExpect(status().isOk())
                    .andExpect(header().exists("RateLimit-Policy"));
            mvc.perform(get("/reports").param("user", "jo")).andExpect(status().isTooManyRequests());
        });
    }

    @Test
    void aRequestWaitsForItsPermitWithinTheWaitTimeout() {
        runner().run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            // one permit a second: the second and third requests wait for it instead of getting 429
            for (int i = 0; i < 3; i++) {
                mvc.perform(get("/patient").param("user", "kim"))
                        .andExpect(status().isOk())
                        .andExpect(header().string("RateLimit-Policy", "\"SearchController.patient\";q=1;w=1"));
            }
        });
    }

    @Test
    void aWindowThatIsNotWholeSecondsHasNoW() {
        runner().run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            mvc.perform(get("/short").param("user", "hal"))
                    .andExpect(header().string("RateLimit-Policy", "\"SearchController.shortWindow\";q=5"));
        });
    }

    @Test
    void aRejectionOutsideAnyRequestStillThrows() {
        runner().run(context -> {
            ReportService reports = context.getBean(ReportService.class);
            var scheduler = Executors.newSingleThreadScheduledExecutor();
            try {
                Future<String> first = scheduler.schedule(reports::run, 1, TimeUnit.MILLISECONDS);
                assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo("report");
                Future<String> second = scheduler.schedule(reports::run, 1, TimeUnit.MILLISECONDS);
                assertThatThrownBy(() -> second.get(30, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(RateLimitExceededException.class);
            }
            finally {
                scheduler.shutdown();
            }
        });
    }

    @Test
    void headersWithRemainingPermitsAddNoRoundTrip() {
        runner().run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            CommandStats before = redis.commandStats();
            mvc.perform(get("/export").param("user", "ivy")) // a new key: its config is written by the same call
                    .andExpect(status().isOk())
                    .andExpect(header().string("RateLimit", org.hamcrest.Matchers.matchesPattern(
                            "\"export-burst\";r=2;t=(9|10), \"export-daily\";r=1;t=864\\d\\d")));
            mvc.perform(get("/export").param("user", "ivy"))
                    .andExpect(status().isOk())
                    .andExpect(header().string("RateLimit", org.hamcrest.Matchers.matchesPattern(
                            "\"export-burst\";r=1;t=(9|10), \"export-daily\";r=0;t=864\\d\\d")));
            CommandStats delta = redis.commandStats().minus(before);
            // one script call per call, deciding both its limits, the permits left included in its reply
            assertThat(delta.calls("evalsha") + delta.calls("eval")).as("commands: %s", delta).isEqualTo(2);
            assertThat(delta.calls("evalsha_ro") + delta.calls("eval_ro")).as("commands: %s", delta).isZero();
        });
        redis.flushAll();
        runner().withPropertyValues("ratelimit.headers.remaining=false").run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            CommandStats before = redis.commandStats();
            mvc.perform(get("/export").param("user", "ivy")).andExpect(status().isOk())
                    .andExpect(header().doesNotExist("RateLimit"));
            CommandStats delta = redis.commandStats().minus(before);
            assertThat(delta.calls("evalsha") + delta.calls("eval")).as("commands: %s", delta).isEqualTo(1);
            assertThat(delta.calls("evalsha_ro") + delta.calls("eval_ro")).as("commands: %s", delta).isZero();
        });
    }
}
