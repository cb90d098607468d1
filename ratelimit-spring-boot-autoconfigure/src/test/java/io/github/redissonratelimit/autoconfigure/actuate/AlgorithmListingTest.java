package io.github.redissonratelimit.autoconfigure.actuate;

import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.test.redis.FreshRedis;

/** The endpoint lists each limit's algorithm, a token bucket's burst and a calendar quota's period and zone. */
class AlgorithmListingTest {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();

    public static class Api {

        @RateLimit(name = "search", algorithm = RateLimitAlgorithm.TOKEN_BUCKET, rate = 10, interval = 1, burst = 25)
        public String search() {
            return "ok";
        }

        @RateLimit(name = "export", rate = 1000, calendar = CalendarPeriod.MONTH)
        public String export() {
            return "ok";
        }

        @RateLimit(name = "submit", rate = 5, interval = 60)
        public String submit() {
            return "ok";
        }
    }

    @Test
    void listsTheAlgorithmOfEachLimit() {
        RateLimitsEndpointTest.webApplication(fresh.endpoint()).withBean(Api.class)
                .withPropertyValues("ratelimit.defaults.zone=Europe/Paris").run(context -> {
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
                    // sorted by name: export, search, submit
                    mvc.perform(get("/actuator/ratelimits")).andExpect(status().isOk())
                            .andExpect(jsonPath("$.limits[1].name").value("search"))
                            .andExpect(jsonPath("$.limits[1].algorithm").value("TOKEN_BUCKET"))
                            .andExpect(jsonPath("$.limits[1].burst").value(25))
                            .andExpect(jsonPath("$.limits[1].calendar").doesNotExist())
                            .andExpect(jsonPath("$.limits[0].name").value("export"))
                            .andExpect(jsonPath("$.limits[0].algorithm").value("FIXED_WINDOW"))
                            .andExpect(jsonPath("$.limits[0].calendar").value("MONTH"))
                            .andExpect(jsonPath("$.limits[0].zone").value("Europe/Paris"))
                            .andExpect(jsonPath("$.limits[0].burst").doesNotExist())
                            .andExpect(jsonPath("$.limits[2].name").value("submit"))
                            .andExpect(jsonPath("$.limits[2].algorithm").value("SLIDING_WINDOW"))
                            .andExpect(jsonPath("$.limits[2].zone").doesNotExist());
                });
    }
}
