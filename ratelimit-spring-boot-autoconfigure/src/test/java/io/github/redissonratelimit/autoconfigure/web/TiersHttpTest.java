package io.github.redissonratelimit.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.HeldPermits;
import io.github.redissonratelimit.test.redis.RespClient;

/** Tiers over HTTP, on a real Redis: each caller gets the quota of its plan, and the headers show it. */
class TiersHttpTest {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();

    private WebApplicationContextRunner runner() {
        return MvcOnRedis.runner(redis)
                .withBean("plans", Plans.class)
                .withBean(ApiController.class)
                .withPropertyValues("ratelimit.policies.api.rate=2", "ratelimit.policies.api.interval=60s",
                        "ratelimit.policies.api.tiers.free.rate=1", "ratelimit.policies.api.tiers.pro.rate=3");
    }

    /** Which plan each API key has; an operator may move a key to another plan at any time. */
    public static class Plans {

        private final Map<String, String> plans = new ConcurrentHashMap<>(Map.of("k-free", "free", "k-pro", "pro"));

        public String planOf(String apiKey) {
            return plans.getOrDefault(apiKey, "trial");
        }

        void move(String apiKey, String plan) {
            plans.put(apiKey, plan);
        }
    }

    @RestController
    public static class ApiController {

        @GetMapping("/api")
        @RateLimit(name = "api", key = "'api:' + #apiKey", tier = "@plans.planOf(#apiKey)")
        public String api(@RequestParam String apiKey) {
            return "ok";
        }
    }

    @Test
    void eachCallerGetsTheQuotaOfItsTierAndTheHeadersShowIt() {
        runner().run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            assertThat(allowed(mvc, "k-free", "\"api\";q=1;w=60")).isEqualTo(1);
            assertThat(allowed(mvc, "k-pro", "\"api\";q=3;w=60")).isEqualTo(3);
            // a tier the policy does not configure gets the policy's own values
            assertThat(allowed(mvc, "k-other", "\"api\";q=2;w=60")).isEqualTo(2);
        });
    }

    @Test
    void aKeyThatChangesTierGetsTheNewTiersRateUnderTheConfigChangeRules() {
        runner().run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            Plans plans = context.getBean(Plans.class);
            plans.move("k-up", "free");
            assertThat(allowed(mvc, "k-up", "\"api\";q=1;w=60")).isEqualTo(1);

            plans.move("k-up", "pro");
            // on-config-change=update: the new rate applies and the window's grant is kept: 3 - 1 are left
            assertThat(allowed(mvc, "k-up", "\"api\";q=3;w=60")).isEqualTo(2);
            try (RespClient cli = redis.cli()) {
                assertThat(HeldPermits.of(cli, "rate_limit:{api:k-up}:permits")).as("permits held").isEqualTo(3);
            }
        });
    }

    @Test
    void aTierWithoutAValidRateFailsStartup() {
        runner().withPropertyValues("ratelimit.policies.api.tiers.pro.permits=5").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining(
                    "ratelimit.policies.api.tiers.pro.permits (5) must not exceed ratelimit.policies.api.tiers.pro.rate (3)");
        });
    }

    /** Calls until rejected (at most 10 times); every response carries {@code policy}. */
    private static int allowed(MockMvc mvc, String apiKey, String policy) throws Exception {
        for (int i = 0; i < 10; i++) {
            int status = mvc.perform(get("/api").param("apiKey", apiKey))
                    .andExpect(header().string("RateLimit-Policy", policy))
                    .andReturn().getResponse().getStatus();
            if (status == 429) {
                return i;
            }
            assertThat(status).isEqualTo(200);
        }
        return 10;
    }
}
