package io.github.redissonratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;

import io.github.redissonratelimit.test.redis.RespClient;

/**
 * The sample as a user runs it: embedded Redis by default, real HTTP, metrics exported to Prometheus (which
 * {@code @SpringBootTest} turns off unless told). The tests count grants, so a decision waits up to 5 s for Redis:
 * on a loaded machine one that misses the default 100 ms goes to the {@code local} outage policy, and the counts are
 * no longer Redis's. The same context as DashboardScrapeTest's.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "ratelimit.backend-timeout=5s")
@AutoConfigureObservability(tracing = false)
class SampleApplicationTest {

    private final HttpClient http = HttpClient.newHttpClient();

    @Autowired
    private Environment environment;

    private HttpResponse<String> send(String method, String path) throws IOException, InterruptedException {
        URI uri = URI.create("http://localhost:" + environment.getProperty("local.server.port") + path);
        return http.send(HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private CompletableFuture<HttpResponse<String>> post(String path) {
        URI uri = URI.create("http://localhost:" + environment.getProperty("local.server.port") + path);
        return http.sendAsync(HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> postJson(String path, String json) throws IOException, InterruptedException {
        URI uri = URI.create("http://localhost:" + environment.getProperty("local.server.port") + path);
        return http.send(HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The README's walkthrough: reset a caller and override a limit through the actuator, with curl's requests. */
    @Test
    void actuatorResetsACallerAndOverridesALimit() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(send("POST", "/orders/submit?userId=dave").statusCode()).isEqualTo(200);
        }
        assertThat(send("POST", "/orders/submit?userId=dave").statusCode()).isEqualTo(429);

        HttpResponse<String> reset = send("DELETE", "/actuator/ratelimits/order-submit/order:submit:dave");
        assertThat(reset.statusCode()).isEqualTo(200);
        assertThat(reset.body()).contains("\"deletedKeys\":3");
        assertThat(send("POST", "/orders/submit?userId=dave").statusCode()).isEqualTo(200);

        HttpResponse<String> override = postJson("/actuator/ratelimits/order-submit", "{\"rate\":1,\"interval\":\"1m\"}");
        try {
            assertThat(override.statusCode()).isEqualTo(200);
            assertThat(send("POST", "/orders/submit?userId=erin").statusCode()).isEqualTo(200);
            HttpResponse<String> rejected = send("POST", "/orders/submit?userId=erin");
            assertThat(rejected.statusCode()).isEqualTo(429);
            assertThat(rejected.headers().firstValue("RateLimit-Policy")).hasValue("\"order-submit\";q=1;w=60");
            assertThat(send("GET", "/actuator/ratelimits").body()).contains("\"overrides\":{\"order-submit\"");
        }
        finally {
            assertThat(send("DELETE", "/actuator/ratelimits/order-submit/override").statusCode()).isEqualTo(200);
        }
        assertThat(send("POST", "/orders/submit?userId=erin").statusCode()).as("back to 5 a minute").isEqualTo(200);
    }

    @Test
    void healthMetricsAndPrometheusAreExposed() throws Exception {
        send("GET", "/orders/detail");
        assertThat(send("GET", "/actuator/health").body()).contains("\"status\":\"UP\"");
        assertThat(send("GET", "/actuator/metrics/ratelimit.requests").statusCode()).isEqualTo(200);
        assertThat(send("GET", "/actuator/prometheus").body()).contains("ratelimit_requests");
    }

    @Test
    void fiveOrdersPerUserThen429() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(send("POST", "/orders/submit?userId=alice").statusCode()).isEqualTo(200);
        }
        HttpResponse<String> rejected = send("POST", "/orders/submit?userId=alice");

        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("Retry-After")).hasValueSatisfying(
                seconds -> assertThat(Long.parseLong(seconds)).isBetween(55L, 60L));
        assertThat(rejected.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(rejected.headers().firstValue("RateLimit")).hasValueSatisfying(value -> assertThat(value)
                .matches("\"order-submit\";r=0;t=(5[5-9]|60)"));
        assertThat(rejected.body()).contains("\"status\":429", "\"title\":\"Too Many Requests\"",
                "\"detail\":\"You can submit at most 5 orders per minute\"", "\"instance\":\"/orders/submit\"");
        assertThat(send("POST", "/orders/submit?userId=bob").statusCode()).isEqualTo(200);

        try (RespClient redis = new RespClient("127.0.0.1", environment.getProperty("spring.data.redis.port", Integer.class))) {
            assertThat(redis.list("KEYS", "rate_limit*")).contains("rate_limit:{order:submit:alice}",
                    "rate_limit:{order:submit:alice}:value", "rate_limit:{order:submit:alice}:permits");
        }
    }

    /** Only failed logins count: successes never do, and five failures refuse even the right password. */
    @Test
    void loginCountsOnlyFailedAttempts() throws Exception {
        for (int i = 0; i < 20; i++) {
            assertThat(send("POST", "/login?user=gus&password=demo").statusCode()).isEqualTo(200);
        }
        for (int i = 0; i < 5; i++) {
            assertThat(send("POST", "/login?user=gus&password=guess").statusCode()).isEqualTo(401);
        }
        HttpResponse<String> refused = send("POST", "/login?user=gus&password=demo");
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.body()).contains("Too many failed logins, try again later");
        assertThat(send("POST", "/login?user=hal&password=demo").statusCode()).as("another user").isEqualTo(200);
    }

    /** A route in application.yml limits an endpoint without an annotation. */
    @Test
    void statusIsLimitedByARouteWithoutAnnotation() throws Exception {
        HttpResponse<String> status = send("GET", "/status");
        assertThat(status.statusCode()).isEqualTo(200);
        assertThat(status.headers().firstValue("RateLimit-Policy")).hasValue("\"status-per-address\";q=60;w=60");
        int rejected = 0;
        for (int i = 0; i < 60; i++) {
            rejected += send("GET", "/status").statusCode() == 429 ? 1 : 0;
        }
        assertThat(rejected).as("61 requests against 60 a minute").isPositive();
    }

    @Test
    void detailIsOneGlobalLimit() throws Exception {
        HttpResponse<String> detail = send("GET", "/orders/detail");
        assertThat(detail.statusCode()).isEqualTo(200);
        assertThat(detail.headers().firstValue("RateLimit-Policy")).hasValue("\"OrderController.detail\";q=100;w=1");
    }

    @Test
    void searchHasTwoLimitsAndReportsBoth() throws Exception {
        HttpResponse<String> allowed = send("GET", "/orders/search?userId=carol");
        assertThat(allowed.statusCode()).isEqualTo(200);
        assertThat(allowed.headers().firstValue("RateLimit-Policy"))
                .hasValue("\"order-search-burst\";q=2;w=1, \"order-search-minute\";q=20;w=60");
        assertThat(allowed.headers().firstValue("RateLimit")).as("the permits left, from the acquire replies")
                .hasValueSatisfying(value -> assertThat(value).matches(
                        "\"order-search-burst\";r=1;t=1, \"order-search-minute\";r=19;t=(59|60)"));
    }

    @Test
    void exportIsADailyQuota() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(send("GET", "/orders/export?userId=frank").statusCode()).isEqualTo(200);
        }
        HttpResponse<String> refused = send("GET", "/orders/export?userId=frank");
        assertThat(refused.statusCode()).isEqualTo(429);
        long untilMidnight = java.time.Duration.between(java.time.Instant.now(),
                java.time.LocalDate.now(java.time.ZoneOffset.UTC).plusDays(1).atStartOfDay(java.time.ZoneOffset.UTC))
                .toSeconds();
        assertThat(refused.headers().firstValue("Retry-After")).as("the quota starts again at midnight UTC")
                .hasValueSatisfying(value -> assertThat(Long.parseLong(value)).isBetween(untilMidnight - 5,
                        untilMidnight + 5));
        assertThat(send("GET", "/orders/export?userId=grace").statusCode()).isEqualTo(200);
    }

    /**
     * At most 3 exports in flight per tenant: the 4th is refused at once, while the others run, and a call passes
     * again once they ended. Should the machine stall past the exports' end before the 4th is decided, the round is
     * made again with longer exports (a 4th that passes while the three still run fails the test).
     */
    @Test
    void atMostThreeExportsInFlightPerTenant() throws Exception {
        for (long ms = 2_000; ; ms *= 2) {
            String tenant = "acme-" + ms;
            String export = "/reports/export?tenant=" + tenant + "&ms=";
            List<CompletableFuture<HttpResponse<String>>> running = List.of(post(export + ms), post(export + ms),
                    post(export + ms));
            await("the 3 exports hold their permits").atMost(Duration.ofSeconds(10))
                    .until(() -> freePermits(tenant) == 0 || running.stream().anyMatch(CompletableFuture::isDone));

            HttpResponse<String> fourth = send("POST", export + 0);
            boolean whileTheyRan = running.stream().noneMatch(CompletableFuture::isDone);
            if (fourth.statusCode() != 429 && !whileTheyRan && ms < 16_000) {
                running.forEach(CompletableFuture::join);
                continue;
            }
            assertThat(fourth.statusCode()).as("the 4th export while 3 of %s run", tenant).isEqualTo(429);
            assertThat(fourth.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(fourth.body()).contains("\"status\":429", "\"detail\":\"At most 3 exports per tenant at once\"");
            assertThat(fourth.headers().firstValue("RateLimit-Policy")).hasValue("\"report-export\";q=3");
            assertThat(fourth.headers().firstValue("RateLimit")).hasValue("\"report-export\";r=0");
            assertThat(fourth.headers().firstValue("Retry-After")).as("no time is known at which a call ends").isEmpty();
            assertThat(send("POST", "/reports/export?tenant=other-" + ms).statusCode()).as("another tenant")
                    .isEqualTo(200);

            assertThat(running).allSatisfy(call -> assertThat(call.join().statusCode()).isEqualTo(200));
            await("the permits back once the exports ended").atMost(Duration.ofSeconds(10))
                    .until(() -> freePermits(tenant) == 3);
            assertThat(send("POST", export + 0).statusCode()).as("once they ended").isEqualTo(200);
            return;
        }
    }

    private long freePermits(String tenant) throws IOException, InterruptedException {
        String state = send("GET", "/actuator/ratelimits/report-export/export:" + tenant).body();
        Matcher free = Pattern.compile("\"availablePermits\":(\\d+)").matcher(state);
        assertThat(free.find()).as(state).isTrue();
        return Long.parseLong(free.group(1));
    }
}
