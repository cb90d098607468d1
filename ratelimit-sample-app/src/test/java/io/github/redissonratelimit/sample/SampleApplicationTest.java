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
        assertThat(send("GET", "/orders/detail").statusCode()).isEqualTo(200);
    }
}
