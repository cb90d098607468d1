package io.github.redissonratelimit.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.http.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.WebMvcAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.metrics.RateLimitMetricsAutoConfiguration;
import io.github.redissonratelimit.test.redis.RedisServerProcess;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * Redis refusing our script's writes (a full Redis under {@code maxmemory-policy noeviction}: Redis 7 answers
 * {@code OOM command not allowed when used memory > 'maxmemory'. script: ..., on @user_script:1.}) is an outage:
 * the outage policy applies and its metrics count it; no 500, no ERROR.
 */
class RedisRefusalProblemTest {

    private static RedisServerProcess server;

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

    @BeforeAll
    static void startRedis() {
        server = RedisServerProcess.startOnFreePort();
    }

    @AfterAll
    static void stopRedis() {
        server.close();
    }

    @BeforeEach
    void setUp() {
        log.start();
        root.addAppender(log);
    }

    @AfterEach
    void tearDown() {
        root.detachAppender(log);
        try (RespClient cli = cli()) {
            cli.command("CONFIG", "SET", "maxmemory", "0");
            cli.command("FLUSHALL");
        }
    }

    private static RespClient cli() {
        return new RespClient("127.0.0.1", server.port());
    }

    private WebApplicationContextRunner runner() {
        return new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                        RateLimitWebMvcAutoConfiguration.class, RateLimitMetricsAutoConfiguration.class,
                        AopAutoConfiguration.class, WebMvcAutoConfiguration.class, JacksonAutoConfiguration.class,
                        HttpMessageConvertersAutoConfiguration.class, MetricsAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
                .withBean(RedissonClient.class, RedisRefusalProblemTest::redisson,
                        definition -> definition.setDestroyMethodName("shutdown"))
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

    /**
     * {@code maxmemory} a little above what Redis uses now, {@code noeviction}, then writes until Redis refuses;
     * then {@code maxmemory} a little below what it holds, so that it stays full.
     */
    private static String fillRedis() {
        try (RespClient cli = cli()) {
            Matcher used = Pattern.compile("used_memory:(\\d+)").matcher(cli.string("INFO", "memory"));
            assertThat(used.find()).isTrue();
            cli.command("CONFIG", "SET", "maxmemory-policy", "noeviction");
            cli.command("CONFIG", "SET", "maxmemory", String.valueOf(Long.parseLong(used.group(1)) + 512 * 1024));
            String value = "f".repeat(16 * 1024);
            for (int i = 0; i < 1_000; i++) {
                Throwable refused = catchThrowable(() -> cli.command("SET", "filler:" + System.nanoTime(), value));
                if (refused != null) {
                    // full; and kept full when buffers shrink (this client's goes when it closes): the limit
                    // goes a little below what the data alone takes
                    Matcher now = Pattern.compile("used_memory:(\\d+)").matcher(cli.string("INFO", "memory"));
                    assertThat(now.find()).isTrue();
                    cli.command("CONFIG", "SET", "maxmemory", String.valueOf(Long.parseLong(now.group(1)) - 128 * 1024));
                    return refused.getMessage();
                }
            }
            throw new AssertionError("Redis took 16 MB without refusing a write");
        }
    }

    @Test
    void aFullRedisFollowsTheOutagePolicy() {
        runner().run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            mvc.perform(get("/orders/list").param("userId", "1")).andExpect(status().isOk());

            String refusal = fillRedis();
            assertThat(refusal).startsWith("OOM command not allowed when used memory > 'maxmemory'");
            log.list.clear();

            mvc.perform(get("/orders/list").param("userId", "1"))       // allow: runs
                    .andExpect(status().isOk())
                    .andExpect(content().string("orders"));
            mvc.perform(get("/orders/list").param("userId", "2"))       // a new limiter: its first write refused
                    .andExpect(status().isOk());
            mvc.perform(post("/orders/submit").param("userId", "1"))    // deny: 503 problem
                    .andExpect(status().isServiceUnavailable())
                    .andExpect(header().string("Retry-After", "1"))
                    .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
                    .andExpect(jsonPath("$.status").value(503))
                    .andExpect(jsonPath("$.detail").value("The request cannot be rate limited right now; try again later"));

            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.find("ratelimit.backend.failures").counters())
                    .isNotEmpty()
                    .allSatisfy(counter -> assertThat(counter.getId().getTag("exception")).isNotBlank());
            assertThat(registry.find("ratelimit.backend.failures").counters().stream().mapToDouble(Counter::count).sum())
                    .isEqualTo(3);
            assertThat(registry.get("ratelimit.requests").tags("result", "error").counters().stream()
                    .mapToDouble(Counter::count).sum()).isEqualTo(3);
            assertThat(log.list).noneSatisfy(event -> assertThat(event.getLevel()).isEqualTo(Level.ERROR));
            assertThat(log.list).noneSatisfy(event -> assertThat(event.getThrowableProxy()).isNotNull());

            // Redis makes room: limiting resumes (the circuit never opened: 3 failures < 5)
            try (RespClient cli = cli()) {
                cli.command("CONFIG", "SET", "maxmemory", "0");
            }
            mvc.perform(post("/orders/submit").param("userId", "1")).andExpect(status().isOk());
        });
    }
}
