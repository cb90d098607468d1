package io.github.redissonratelimit.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
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
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.ResilienceDecorator;
import io.github.redissonratelimit.outcome.CircuitState;
import io.github.redissonratelimit.test.redis.RedisServerProcess;

/** What HTTP clients see while Redis is down: reads go through, writes get 503 (or 429) with Retry-After. */
class BackendUnavailableProblemTest {

    private static RedisServerProcess server;

    @BeforeAll
    static void startRedis() {
        server = RedisServerProcess.startOnFreePort();
    }

    @AfterAll
    static void stopRedis() {
        server.stop();
    }

    @BeforeEach
    void redisIsUp() {
        server.start();
    }

    private WebApplicationContextRunner runner() {
        return new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                        RateLimitWebMvcAutoConfiguration.class, AopAutoConfiguration.class,
                        WebMvcAutoConfiguration.class, JacksonAutoConfiguration.class,
                        HttpMessageConvertersAutoConfiguration.class))
                .withBean(RedissonClient.class, BackendUnavailableProblemTest::redisson,
                        definition -> definition.setDestroyMethodName("shutdown"))
                .withPropertyValues("ratelimit.circuit-breaker.open-duration=30s")
                .withBean(OrdersController.class);
    }

    private static RedissonClient redisson() {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://127.0.0.1:" + server.port()).setConnectionMinimumIdleSize(1)
                .setConnectionPoolSize(2);
        return Redisson.create(config);
    }

    @RestController
    public static class OrdersController {

        @PostMapping("/orders/submit")
        @RateLimit(key = "'order:submit:' + #userId", rate = 2, interval = 60, onBackendError = BackendErrorPolicy.DENY)
        public String submit(@RequestParam String userId) {
            return "accepted";
        }

        @GetMapping("/orders/list")
        @RateLimit(key = "'order:list:' + #userId", rate = 2, interval = 60, onBackendError = BackendErrorPolicy.ALLOW)
        public String list(@RequestParam String userId) {
            return "orders";
        }
    }

    @Test
    void aDeniedCallIs503WithRetryAfterAndAProblemDetail() {
        runner().run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            mvc.perform(post("/orders/submit").param("userId", "1")).andExpect(status().isOk());

            long stopped = System.nanoTime();
            server.stop();

            for (int i = 0; i < 7; i++) { // past the failure threshold (5): the circuit opens for 30s
                mvc.perform(get("/orders/list").param("userId", "1")).andExpect(status().isOk());
            }
            // once no answer came within the liveness time
            await().atMost(Duration.ofSeconds(10)).until(() -> context.getBean(ResilienceDecorator.class).circuits()
                    .getState() == CircuitState.OPEN);
            MvcResult denied = mvc.perform(post("/orders/submit").param("userId", "1"))
                    .andExpect(status().isServiceUnavailable())
                    .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
                    .andExpect(jsonPath("$.title").value("Service Unavailable"))
                    .andExpect(jsonPath("$.status").value(503))
                    .andExpect(jsonPath("$.detail").value("The request cannot be rate limited right now; try again later"))
                    .andExpect(jsonPath("$.instance").value("/orders/submit")).andReturn();
            // what is left of the 30 s the circuit stays open: it opened after Redis stopped, so at least 30 s less
            // the time since then (a loaded machine may take over a second to get here)
            double sinceStopped = (System.nanoTime() - stopped) / 1e9;
            assertThat(Integer.parseInt(denied.getResponse().getHeader("Retry-After")))
                    .isBetween((int) Math.floor(30 - sinceStopped), 30);
        });
    }

    @Test
    void denyStatusCanBe429() {
        runner().withPropertyValues("ratelimit.deny-status=429").run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            mvc.perform(post("/orders/submit").param("userId", "2")).andExpect(status().isOk());

            server.stop();

            mvc.perform(post("/orders/submit").param("userId", "2"))
                    .andExpect(status().isTooManyRequests())
                    .andExpect(header().string("Retry-After", "1"))
                    .andExpect(jsonPath("$.title").value("Too Many Requests"))
                    .andExpect(jsonPath("$.status").value(429));
        });
    }
}
