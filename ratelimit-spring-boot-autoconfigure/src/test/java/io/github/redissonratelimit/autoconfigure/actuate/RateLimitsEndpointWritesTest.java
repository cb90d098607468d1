package io.github.redissonratelimit.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import java.security.Principal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/** The writes of {@code /actuator/ratelimits} over HTTP, on a real Redis: resets and overrides, with their logs. */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitsEndpointWritesTest {

    private static final Principal ALICE = () -> "alice";

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();

    private WebApplicationContextRunner runner() {
        return RateLimitsEndpointTest.webApplication(redis).withPropertyValues("ratelimit.backend-timeout=5s")
                .withBean(Orders.class);
    }

    public static class Orders {

        @RateLimit(name = "order-submit", key = "'order:' + #userId", rate = 2, interval = 60)
        public String submit(String userId) {
            return "ok";
        }

        @RateLimit(name = "report", rate = 1, interval = 60)
        public String report() {
            return "report";
        }
    }

    @Test
    void deletingAKeyResetsOneCallerAndLogsWhoDidIt(CapturedOutput output) {
        runner().run(context -> {
            Orders orders = context.getBean(Orders.class);
            orders.submit("42");
            orders.submit("42");
            orders.submit("7");
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();

            mvc.perform(delete("/actuator/ratelimits/order-submit/order:42").principal(ALICE))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.name").value("order-submit"))
                    .andExpect(jsonPath("$.key").value("order:42"))
                    .andExpect(jsonPath("$.deletedKeys").value(3))
                    .andExpect(jsonPath("$.instancesConfirmed").value(1));

            assertThat(redis.keys("rate_limit:{order:42}*")).isEmpty();
            assertThat(redis.keys("rate_limit:{order:7}*")).hasSize(3);
            assertThat(output).contains("Reset rate limit 'order-submit' for key 'order:42'", "by 'alice'");
            assertThat(orders.submit("42")).isEqualTo("ok");
        });
    }

    @Test
    void aKeyCanBeGivenAsAParameterAndTheLimitAsAWhole() {
        runner().run(context -> {
            Orders orders = context.getBean(Orders.class);
            orders.submit("override");
            orders.submit("7");
            orders.report();
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();

            mvc.perform(delete("/actuator/ratelimits/order-submit").param("key", "order:override"))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.key").value("order:override"))
                    .andExpect(jsonPath("$.deletedKeys").value(3));
            assertThat(redis.keys("rate_limit:{order:override}*")).isEmpty();

            mvc.perform(delete("/actuator/ratelimits/order-submit"))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.key").doesNotExist())
                    .andExpect(jsonPath("$.deletedKeys").value(3));
            assertThat(redis.keys("rate_limit:{order:*")).isEmpty();
            assertThat(redis.keys("rate_limit:{report}*")).hasSize(3);

            mvc.perform(delete("/actuator/ratelimits/report")).andExpect(status().isOk())
                    .andExpect(jsonPath("$.deletedKeys").value(3));
            assertThat(orders.report()).isEqualTo("report");
            mvc.perform(delete("/actuator/ratelimits/nothing")).andExpect(status().isNotFound());
            mvc.perform(delete("/actuator/ratelimits/nothing/key")).andExpect(status().isNotFound());
        });
    }

    @Test
    void postingOverridesTheLimitAndDeletingOverrideGoesBack(CapturedOutput output) {
        runner().run(context -> {
            Orders orders = context.getBean(Orders.class);
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();

            mvc.perform(post("/actuator/ratelimits/order-submit").principal(ALICE)
                    .contentType(MediaType.APPLICATION_JSON).content("{\"rate\": 1, \"interval\": \"30s\"}"))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.name").value("order-submit"))
                    .andExpect(jsonPath("$.rate").value(1))
                    .andExpect(jsonPath("$.intervalMillis").value(30000))
                    .andExpect(jsonPath("$.permits").doesNotExist())
                    .andExpect(jsonPath("$.by").value("alice"));
            assertThat(output).contains("Overrode rate limit 'order-submit': 2 per PT1M -> 1 per PT30S",
                    "by 'alice'");

            assertThat(orders.submit("42")).isEqualTo("ok");
            try {
                orders.submit("42");
                throw new AssertionError("the override allows one call per 30 s");
            }
            catch (RateLimitExceededException expected) {
                assertThat(expected.getLimit().rate()).isEqualTo(1);
            }
            mvc.perform(get("/actuator/ratelimits"))
                    .andExpect(jsonPath("$.overrides['order-submit'].rate").value(1))
                    .andExpect(jsonPath("$.overrides['order-submit'].interval").value("PT30S"));
            mvc.perform(get("/actuator/ratelimits/order-submit/order:42"))
                    .andExpect(jsonPath("$.availablePermits").value(0));

            mvc.perform(delete("/actuator/ratelimits/order-submit/override").principal(ALICE))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.removed").value(true));
            assertThat(output).contains("Removed the override [1 per PT30S] of rate limit 'order-submit'");
            assertThat(orders.submit("42")).as("back to 2 per minute").isEqualTo("ok");
            mvc.perform(get("/actuator/ratelimits")).andExpect(jsonPath("$.overrides").isEmpty());
        });
    }

    @Test
    void invalidOverridesAreBadRequests() {
        runner().run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();

            mvc.perform(post("/actuator/ratelimits/order-submit").contentType(MediaType.APPLICATION_JSON)
                    .content("{\"rate\": 1, \"interval\": \"soon\"}")).andExpect(status().isBadRequest());
            mvc.perform(post("/actuator/ratelimits/order-submit").contentType(MediaType.APPLICATION_JSON)
                    .content("{\"rate\": 0, \"interval\": \"30s\"}")).andExpect(status().isBadRequest());
            mvc.perform(post("/actuator/ratelimits/order-submit").contentType(MediaType.APPLICATION_JSON)
                    .content("{\"rate\": 1, \"interval\": \"30s\", \"permits\": 2}")).andExpect(status().isBadRequest());
            mvc.perform(post("/actuator/ratelimits/order-submit").contentType(MediaType.APPLICATION_JSON)
                    .content("{\"interval\": \"30s\"}")).andExpect(status().isBadRequest());
            mvc.perform(post("/actuator/ratelimits/nothing").contentType(MediaType.APPLICATION_JSON)
                    .content("{\"rate\": 1, \"interval\": \"30s\"}")).andExpect(status().isNotFound());
            assertThat(redis.keys("rate_limit:%overrides")).isEmpty();
        });
    }
}
