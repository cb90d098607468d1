package io.github.redissonratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;

import io.github.redissonratelimit.test.redis.RespClient;

/** The sample as a user runs it: embedded Redis by default, real HTTP. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SampleApplicationTest {

    private final HttpClient http = HttpClient.newHttpClient();

    @Autowired
    private Environment environment;

    private HttpResponse<String> send(String method, String path) throws IOException, InterruptedException {
        URI uri = URI.create("http://localhost:" + environment.getProperty("local.server.port") + path);
        return http.send(HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
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
}
