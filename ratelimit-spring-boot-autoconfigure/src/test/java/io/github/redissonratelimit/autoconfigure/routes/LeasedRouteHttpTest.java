package io.github.redissonratelimit.autoconfigure.routes;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.github.redissonratelimit.autoconfigure.TestBackends;
import io.github.redissonratelimit.lease.LeasingRateLimitBackend;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.test.redis.FreshRedis;

/**
 * A route with {@code lease} over real HTTP on a real Redis: its requests carry the lease as an annotated limit's do,
 * so most are decided from permits this instance leased, without a call to Redis, and the route still refuses what
 * is over its rate; every response's {@code RateLimit} header tells at most what is left, and the actuator tells
 * what this instance holds. The lease period (10 s) outlasts the test: no lease ends on its own.
 */
class LeasedRouteHttpTest {

    private static final Pattern REMAINING = Pattern.compile("\"hot\";r=(\\d+)");

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final HttpApps apps = new HttpApps(fresh.endpoint());

    @RestController
    public static class Api {

        @GetMapping("/hot")
        public String hot() {
            return "hot";
        }
    }

    @Test
    void mostDecisionsOfALeasedRouteMakeNoRedisCallAndItStillRefusesOverItsRate() throws Exception {
        try (ConfigurableApplicationContext app = apps.start(WebApplicationType.SERVLET, Api.class,
                "ratelimit.routes.hot.paths=/hot", "ratelimit.routes.hot.rate=100",
                "ratelimit.routes.hot.interval=1h", "ratelimit.routes.hot.lease=10s")) {
            LeasingRateLimitBackend leases = TestBackends.layer(app.getBean(RateLimitBackend.class),
                    LeasingRateLimitBackend.class);
            int admitted = 0;
            int refused = 0;
            for (int i = 0; i < 130; i++) {
                HttpResponse<String> response = apps.send(app, "GET", "/hot");
                if (response.statusCode() == 200) {
                    admitted++;
                    Matcher remaining = REMAINING.matcher(response.headers().firstValue("RateLimit").orElseThrow());
                    assertThat(remaining.find()).isTrue();
                    assertThat(Long.parseLong(remaining.group(1))).as("remaining after %d admitted", admitted)
                            .isLessThanOrEqualTo(100 - admitted);
                }
                else {
                    assertThat(response.statusCode()).isEqualTo(429);
                    refused++;
                }
                if (admitted == 50 && response.statusCode() == 200) {
                    assertLeaseShown(apps.send(app, "GET", "/actuator/ratelimits/hot").body(), leases.redisCalls());
                }
            }
            long calls = leases.redisCalls();
            long hits = leases.leaseHits();

            assertThat(admitted).as("admitted of 130 against 100 an hour").isBetween(90, 100);
            assertThat(refused).isEqualTo(130 - admitted);
            assertThat(hits).as("decisions from the lease (Redis calls: %d)", calls)
                    .isGreaterThanOrEqualTo(admitted * 8L / 10);
            assertThat(apps.free("hot")).as("Redis's free permits").isZero();
        }
    }

    /** The actuator tells what this instance holds of the lease; Redis counts it as taken. */
    private static void assertLeaseShown(String body, long calls) throws Exception {
        JsonNode state = new ObjectMapper().readTree(body);
        assertThat(state.at("/limits/0/lease").asText()).isEqualTo("PT10S");
        assertThat(state.at("/lease/period").asText()).isEqualTo("PT10S");
        long held = state.at("/lease/heldPermits").asLong();
        assertThat(held).as(body).isPositive();
        assertThat(state.at("/lease/endsInMillis").asLong()).as(body).isBetween(1L, 10_000L);
        assertThat(state.at("/availablePermits").asLong() + held).as(body).isLessThanOrEqualTo(50);
    }
}
