package io.github.redissonratelimit.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.startsWith;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementContextAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.servlet.ServletManagementContextAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.http.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.DispatcherServletAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.WebMvcAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.InFlightPermits;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

class RateLimitsEndpointTest {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();

    private WebApplicationContextRunner runner() {
        return webApplication(redis).withBean(Orders.class);
    }

    /** A servlet application with the limiter and the endpoint exposed, on {@code redis}; no limited bean yet. */
    static WebApplicationContextRunner webApplication(RedisEndpoint redis) {
        return new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                        RateLimitEndpointAutoConfiguration.class, AopAutoConfiguration.class,
                        EndpointAutoConfiguration.class, WebEndpointAutoConfiguration.class,
                        ManagementContextAutoConfiguration.class, ServletManagementContextAutoConfiguration.class,
                        DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class,
                        JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class))
                // a deadline no decision of a loaded test machine runs into: the counts asserted are Redis's, never
                // the outage policy's in memory
                .withPropertyValues("management.endpoints.web.exposure.include=ratelimits",
                        "ratelimit.backend-timeout=5s")
                .withBean(RedissonClient.class, redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown"));
    }

    public static class Orders {

        @RateLimit(key = "'order:' + #userId", rate = 5, interval = 60, waitTimeout = "1s", skipIf = "#userId == 'ops'")
        public String submit(String userId) {
            return "ok";
        }

        @RateLimit(name = "order-details", rate = 100, window = "1s", mode = RateLimitMode.PER_CLIENT,
                fallback = "busy")
        public String details() {
            return "details";
        }

        String busy() {
            return "busy";
        }
    }

    @Test
    void listsEveryDeclaredLimit() {
        runner().run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            mvc.perform(get("/actuator/ratelimits"))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.limits.length()").value(2))
                    .andExpect(jsonPath("$.limits[0].name").value(Orders.class.getName() + ".submit"))
                    .andExpect(jsonPath("$.limits[0].displayName").value("Orders.submit"))
                    .andExpect(jsonPath("$.limits[0].method").value(Orders.class.getName() + ".submit(String)"))
                    .andExpect(jsonPath("$.limits[0].key").value("'order:' + #userId"))
                    .andExpect(jsonPath("$.limits[0].rate").value(5))
                    .andExpect(jsonPath("$.limits[0].interval").value("PT1M"))
                    .andExpect(jsonPath("$.limits[0].mode").value("OVERALL"))
                    .andExpect(jsonPath("$.limits[0].waitTimeout").value("PT1S"))
                    .andExpect(jsonPath("$.limits[0].skipIf").value("#userId == 'ops'"))
                    .andExpect(jsonPath("$.limits[0].source").value("annotation"))
                    .andExpect(jsonPath("$.limits[1].name").value("order-details"))
                    .andExpect(jsonPath("$.limits[1].key").doesNotExist())
                    .andExpect(jsonPath("$.limits[1].intervalMillis").value(1000))
                    .andExpect(jsonPath("$.limits[1].mode").value("PER_CLIENT"))
                    .andExpect(jsonPath("$.limits[1].fallback").value("busy()"));
        });
    }

    /** Which plan each API key has. */
    public static class Plans {
        public String planOf(String apiKey) {
            return apiKey.startsWith("pro-") ? "pro" : "free";
        }
    }

    public static class Catalog {

        @RateLimit(name = "api", key = "'api:' + #apiKey", tier = "@plans.planOf(#apiKey)")
        public String api(String apiKey) {
            return "ok";
        }

        @RateLimit(name = "import", key = "'import:' + #user", rate = 100, interval = 60, cost = "#items.size()")
        public String importItems(String user, java.util.List<String> items) {
            return "imported";
        }

        @RateLimit(name = "search", rate = 10, interval = 1, permits = 2, shadow = true)
        public String search() {
            return "found";
        }
    }

    @Test
    void listsTiersShadowModeAndCost() {
        runner().withBean("plans", Plans.class).withBean(Catalog.class)
                .withPropertyValues("ratelimit.policies.api.rate=2", "ratelimit.policies.api.interval=60s",
                        "ratelimit.policies.api.tiers.free.rate=1", "ratelimit.policies.api.tiers.pro.rate=30",
                        "ratelimit.policies.api.tiers.pro.interval=1s", "ratelimit.policies.api.tiers.pro.permits=3")
                .run(context -> {
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
                    mvc.perform(get("/actuator/ratelimits"))
                            .andExpect(status().isOk())
                            .andExpect(jsonPath("$.limits.length()").value(5))
                            .andExpect(jsonPath("$.limits[0].name").value("api"))
                            .andExpect(jsonPath("$.limits[0].rate").value(2))
                            .andExpect(jsonPath("$.limits[0].shadow").value(false))
                            .andExpect(jsonPath("$.limits[0].tiers.expression").value("@plans.planOf(#apiKey)"))
                            .andExpect(jsonPath("$.limits[0].tiers.selection").value(
                                    LimitDescriptor.TiersDescriptor.SELECTION))
                            .andExpect(jsonPath("$.limits[0].tiers.tiers.length()").value(2))
                            .andExpect(jsonPath("$.limits[0].tiers.tiers[0].name").value("free"))
                            .andExpect(jsonPath("$.limits[0].tiers.tiers[0].rate").value(1))
                            .andExpect(jsonPath("$.limits[0].tiers.tiers[0].interval").value("PT1M"))
                            .andExpect(jsonPath("$.limits[0].tiers.tiers[0].permits").value(1))
                            .andExpect(jsonPath("$.limits[0].tiers.tiers[1].name").value("pro"))
                            .andExpect(jsonPath("$.limits[0].tiers.tiers[1].rate").value(30))
                            .andExpect(jsonPath("$.limits[0].tiers.tiers[1].intervalMillis").value(1000))
                            .andExpect(jsonPath("$.limits[0].tiers.tiers[1].mode").value("OVERALL"))
                            .andExpect(jsonPath("$.limits[0].tiers.tiers[1].permits").value(3))
                            .andExpect(jsonPath("$.limits[0].tiers.tiers[1].source").exists())
                            .andExpect(jsonPath("$.limits[1].name").value("import"))
                            .andExpect(jsonPath("$.limits[1].cost").value("#items.size()"))
                            .andExpect(jsonPath("$.limits[1].shadow").value(false))
                            .andExpect(jsonPath("$.limits[1].tiers").doesNotExist())
                            .andExpect(jsonPath("$.limits[2].name").value(Orders.class.getName() + ".submit"))
                            .andExpect(jsonPath("$.limits[2].cost").doesNotExist())
                            .andExpect(jsonPath("$.limits[2].permits").value(1))
                            .andExpect(jsonPath("$.limits[4].name").value("search"))
                            .andExpect(jsonPath("$.limits[4].shadow").value(true))
                            .andExpect(jsonPath("$.limits[4].permits").value(2))
                            .andExpect(jsonPath("$.limits[4].cost").doesNotExist());
                    mvc.perform(get("/actuator/ratelimits/api"))
                            .andExpect(status().isOk())
                            .andExpect(jsonPath("$.limits[0].tiers.tiers[1].name").value("pro"));
                });
    }

    public interface Quotes {

        @RateLimit(key = "#symbol", rate = 3)
        String quote(String symbol);

        String history(String symbol);
    }

    public static class QuoteService implements Quotes {

        @Override
        public String quote(String symbol) {
            return "quote";
        }

        @Override
        @RateLimit(rate = 2)
        public String history(String symbol) {
            return "history";
        }
    }

    @Test
    void listsEachLimitOfAnInterfaceProxiedBeanOnce() {
        runner().withPropertyValues("spring.aop.proxy-target-class=false").withBean(QuoteService.class).run(context -> {
            Quotes quotes = context.getBean(Quotes.class);
            assertThat(AopUtils.isJdkDynamicProxy(quotes)).isTrue();
            quotes.quote("ACME");
            quotes.history("ACME");
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();

            mvc.perform(get("/actuator/ratelimits"))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.limits.length()").value(4))
                    .andExpect(jsonPath("$.limits[0].name").value(Orders.class.getName() + ".submit"))
                    .andExpect(jsonPath("$.limits[1].name").value(QuoteService.class.getName() + ".history"))
                    .andExpect(jsonPath("$.limits[1].method").value(QuoteService.class.getName() + ".history(String)"))
                    .andExpect(jsonPath("$.limits[2].name").value(QuoteService.class.getName() + ".quote"))
                    .andExpect(jsonPath("$.limits[2].method").value(QuoteService.class.getName() + ".quote(String)"))
                    .andExpect(jsonPath("$.limits[2].key").value("#symbol"))
                    .andExpect(jsonPath("$.limits[3].name").value("order-details"));
            mvc.perform(get("/actuator/ratelimits/QuoteService.quote/ACME"))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.limits.length()").value(1))
                    .andExpect(jsonPath("$.availablePermits").value(2));
        });
    }

    @Test
    void readsTheLivePermitsOfOneKeyWithoutTakingAny() {
        runner().run(context -> {
            Orders orders = context.getBean(Orders.class);
            orders.submit("42");
            orders.submit("42");
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();

            for (int i = 0; i < 2; i++) {
                mvc.perform(get("/actuator/ratelimits/Orders.submit/order:42"))
                        .andExpect(status().isOk())
                        .andExpect(jsonPath("$.key").value("order:42"))
                        .andExpect(jsonPath("$.limiterName").value("rate_limit:{order:42}"))
                        .andExpect(jsonPath("$.availablePermits").value(3))
                        .andExpect(jsonPath("$.holders").doesNotExist())
                        .andExpect(jsonPath("$.limits[0].rate").value(5));
            }
            mvc.perform(get("/actuator/ratelimits/" + Orders.class.getName() + ".submit/order:7"))
                    .andExpect(jsonPath("$.availablePermits").value(5))
                    .andExpect(jsonPath("$.nextPermitInMillis").value(0));
        });
    }

    /** Calls that run until {@code finish}. */
    record Gate(CountDownLatch running, CountDownLatch finish) {
    }

    public static class Exports {

        private final Gate gate;

        public Exports(Gate gate) {
            this.gate = gate;
        }

        @RateLimit(name = "export", key = "'export:' + #tenant", rate = 3, algorithm = RateLimitAlgorithm.IN_FLIGHT)
        public String export(String tenant) throws InterruptedException {
            gate.running().countDown();
            gate.finish().await();
            return "exported";
        }
    }

    @Test
    void anInFlightLimitTellsWhoHoldsHowMany() {
        Gate gate = new Gate(new CountDownLatch(2), new CountDownLatch(1));
        webApplication(redis).withBean(Exports.class, () -> new Exports(gate)).run(context -> {
            Exports exports = context.getBean(Exports.class);
            ExecutorService calls = Executors.newFixedThreadPool(2);
            try {
                for (int i = 0; i < 2; i++) {
                    calls.submit(() -> exports.export("acme"));
                }
                assertThat(gate.running().await(10, TimeUnit.SECONDS)).isTrue();
                MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
                mvc.perform(get("/actuator/ratelimits/export/export:acme"))
                        .andExpect(status().isOk())
                        .andExpect(jsonPath("$.availablePermits").value(1))
                        .andExpect(jsonPath("$.holders.length()").value(1))
                        .andExpect(jsonPath("$.holders", hasKey(startsWith(ProcessHandle.current().pid() + "@"))))
                        .andExpect(jsonPath("$.holders.*", contains(2)));
                gate.finish().countDown();
                new InFlightPermits(redis).awaitGivenBack("export:acme");
                mvc.perform(get("/actuator/ratelimits/export/export:acme"))
                        .andExpect(jsonPath("$.availablePermits").value(3))
                        .andExpect(jsonPath("$.holders").doesNotExist());
            }
            finally {
                gate.finish().countDown();
                calls.shutdownNow();
            }
        });
    }

    @Test
    void aLimitWithoutKeyReadsItsOneLimiterAndAnUnknownNameIsNotFound() {
        runner().run(context -> {
            context.getBean(Orders.class).details();
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();

            mvc.perform(get("/actuator/ratelimits/order-details"))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.key").value("order-details"))
                    .andExpect(jsonPath("$.availablePermits").value(99));
            mvc.perform(get("/actuator/ratelimits/Orders.submit"))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.limits[0].key").value("'order:' + #userId"))
                    .andExpect(jsonPath("$.availablePermits").doesNotExist());
            mvc.perform(get("/actuator/ratelimits/nothing")).andExpect(status().isNotFound());
        });
    }
}
