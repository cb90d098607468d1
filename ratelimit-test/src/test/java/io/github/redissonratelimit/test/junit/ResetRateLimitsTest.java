package io.github.redissonratelimit.test.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import java.time.Duration;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.autoconfigure.web.servlet.AutoConfigureMockMvc;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.github.redissonratelimit.admin.RateLimiters;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.test.redis.TestRedis;

/**
 * The getting-started example: a {@code @SpringBootTest} with MockMvc whose tests each use up the same caller's
 * limit. Without {@link ResetRateLimits} the second test would start with the first one's permits used, and its
 * first call would be rejected from the local rejection cache whatever Redis holds.
 */
@SpringBootTest(classes = ResetRateLimitsTest.OrdersApplication.class)
@AutoConfigureMockMvc
@ResetRateLimits
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ResetRateLimitsTest {

    @Autowired
    private MockMvc mvc;

    @Autowired
    private RateLimiters rateLimiters;

    @Test
    @Order(1)
    void firstTestUsesUpTheLimitAndOverridesIt() throws Exception {
        useUpThreeOrders();
        rateLimiters.override("order-submit", 1, Duration.ofMinutes(1), null);
        assertThat(rateLimiters.overrides()).containsKey("order-submit");
    }

    @Test
    @Order(2)
    void secondTestStartsWithAFullLimitAndNoOverride() throws Exception {
        assertThat(rateLimiters.overrides()).isEmpty();
        useUpThreeOrders();
    }

    private void useUpThreeOrders() throws Exception {
        for (int i = 0; i < 3; i++) {
            mvc.perform(post("/orders").param("userId", "42")).andExpect(status().isOk());
        }
        mvc.perform(post("/orders").param("userId", "42")).andExpect(status().isTooManyRequests());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class OrdersApplication {

        @Bean(destroyMethod = "shutdown")
        RedissonClient redissonClient() {
            return TestRedis.endpoint().newRedissonClient();
        }

        @Bean
        OrderController orderController() {
            return new OrderController();
        }
    }

    @RestController
    public static class OrderController {

        @PostMapping("/orders")
        @RateLimit(name = "order-submit", key = "'order:submit:' + #userId", rate = 3, interval = 60)
        public String submit(@RequestParam String userId) {
            return "ok";
        }
    }
}
