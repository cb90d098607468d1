package io.github.redissonratelimit.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.TestBackends;
import io.github.redissonratelimit.lease.LeasingRateLimitBackend;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * The endpoint tells, for a limit with a lease, what the instance that answers holds of it now: the permits it may
 * still spend from memory (which Redis counts as taken) and how long it may; nothing for a limit without a lease.
 * The lease period (10 s) outlasts the test: no lease ends on its own.
 */
class LeasedLimitStateTest {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();

    public static class Search {

        @RateLimit(name = "search", rate = 1000, interval = 3600, lease = "10s")
        public String search() {
            return "ok";
        }

        @RateLimit(name = "plain", rate = 1000, interval = 3600)
        public String plain() {
            return "ok";
        }
    }

    @Test
    void aLeasedLimitsStateTellsWhatThisInstanceHoldsOfItsLease() {
        RateLimitsEndpointTest.webApplication(redis).withBean(Search.class).run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            Search search = context.getBean(Search.class);
            LeasingRateLimitBackend leases = TestBackends.layer(context.getBean(RateLimitBackend.class),
                    LeasingRateLimitBackend.class);
            String limiter = context.getBean(LimiterNaming.class).limiterName("search");
            mvc.perform(get("/actuator/ratelimits/search")).andExpect(status().isOk())
                    .andExpect(jsonPath("$.limits[0].lease").value("PT10S"))
                    .andExpect(jsonPath("$.lease.period").value("PT10S"))
                    .andExpect(jsonPath("$.lease.heldPermits").value(0))
                    .andExpect(jsonPath("$.lease.endsInMillis").doesNotExist());
            int calls = 0;
            while (TestBackends.heldPermits(leases, limiter) < 2) {
                assertThat(++calls).as("calls before a lease was held").isLessThan(10);
                assertThat(search.search()).isEqualTo("ok");
            }

            String body = mvc.perform(get("/actuator/ratelimits/search")).andExpect(status().isOk()).andReturn()
                    .getResponse().getContentAsString();
            JsonNode state = new ObjectMapper().readTree(body);
            assertThat(state.at("/lease/heldPermits").asLong()).as(body)
                    .isEqualTo(TestBackends.heldPermits(leases, limiter));
            assertThat(state.at("/lease/endsInMillis").asLong()).as(body).isBetween(1L, 10_000L);
            assertThat(state.at("/availablePermits").asLong() + state.at("/lease/heldPermits").asLong()).as(body)
                    .isEqualTo(1000 - calls);

            mvc.perform(get("/actuator/ratelimits/plain")).andExpect(status().isOk())
                    .andExpect(jsonPath("$.limits[0].lease").doesNotExist())
                    .andExpect(jsonPath("$.lease").doesNotExist());
            mvc.perform(delete("/actuator/ratelimits/search")).andExpect(status().isOk());
            mvc.perform(get("/actuator/ratelimits/search")).andExpect(status().isOk())
                    .andExpect(jsonPath("$.lease.heldPermits").value(0));
        });
    }
}
