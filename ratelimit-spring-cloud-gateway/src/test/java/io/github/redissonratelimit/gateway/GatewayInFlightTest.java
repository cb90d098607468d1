package io.github.redissonratelimit.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;

import com.sun.net.httpserver.HttpExchange;

import io.github.redissonratelimit.test.redis.InFlightPermits;
import io.github.redissonratelimit.test.redis.TestRedis;
import reactor.core.publisher.Mono;

/**
 * A gateway route limited in flight ({@code algorithm: in-flight}, one exchange at once per user) holds its permit
 * while the exchange runs and gives it back when it ends, on a real gateway, backend and Redis: completed, or the
 * client gone from a streaming response. The refusal in between carries no {@code Retry-After}: no time is known at
 * which an exchange ends. A permit back within {@link InFlightPermits#GIVEN_BACK_WITHIN} was given back, not left
 * to expire (30 s lease, renewed while held).
 */
class GatewayInFlightTest {

    private static final InFlightPermits permits = new InFlightPermits(TestRedis.endpoint());
    private static volatile CompletableFuture<Void> slowAnswer = new CompletableFuture<>();
    private static GatewayApp gateway;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Gateway {

        @Bean
        KeyResolver userKeyResolver() {
            return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-User"));
        }
    }

    @BeforeAll
    static void start() throws Exception {
        TestRedis.endpoint().flushAll();
        Map<String, String> inFlight = Map.of("key-resolver", "#{@userKeyResolver}", "redisson-rate-limiter.rate",
                "1", "redisson-rate-limiter.algorithm", "in-flight");
        Map<String, GatewayApp.Route> routes = new LinkedHashMap<>();
        routes.put("slow", new GatewayApp.Route("/slow/**", inFlight));
        routes.put("stream", new GatewayApp.Route("/stream/**", inFlight));
        gateway = GatewayApp.start(Gateway.class, TestRedis.endpoint(), GatewayInFlightTest::backend, routes);
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    /** {@code /slow/**} answers once the test says so; {@code /stream/**} sends an event every 100 ms. */
    private static void backend(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (exchange.getRequestURI().getPath().startsWith("/stream")) {
                exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
                exchange.sendResponseHeaders(200, 0);
                OutputStream body = exchange.getResponseBody();
                for (int i = 0; i < 300; i++) {
                    body.write(("data: tick " + i + "\n\n").getBytes(StandardCharsets.US_ASCII));
                    body.flush();
                    TimeUnit.MILLISECONDS.sleep(100);
                }
                return;
            }
            slowAnswer.get(30, TimeUnit.SECONDS);
            byte[] body = "slow".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
        }
        catch (IOException | InterruptedException | ExecutionException | TimeoutException ex) {
            // the gateway went away, or the test ended
        }
    }

    @Test
    void aCompletedExchangeGivesItsPermitBack() throws Exception {
        slowAnswer = new CompletableFuture<>();
        CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(() -> {
            try {
                return gateway.get("/slow/1", "ann");
            }
            catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        });
        permits.awaitHeld("slow:ann", 1);
        HttpResponse<String> refused = gateway.get("/slow/2", "ann");
        assertThat(refused.statusCode()).as("a second exchange while the first is in flight").isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After")).as("no time is known at which an exchange ends")
                .isEmpty();
        slowAnswer.complete(null);
        assertThat(first.join().body()).isEqualTo("slow");
        permits.awaitGivenBack("slow:ann");
    }

    /** The gateway learns that the client went away when it next writes, and cancels the exchange. */
    @Test
    void anExchangeWhoseClientWentAwayGivesItsPermitBack() throws Exception {
        int port = Integer.parseInt(gateway.context().getEnvironment().getProperty("local.server.port"));
        try (Socket client = new Socket("127.0.0.1", port)) {
            client.getOutputStream().write("GET /stream/1 HTTP/1.1\r\nHost: localhost\r\nX-User: bob\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            BufferedReader response = new BufferedReader(new InputStreamReader(client.getInputStream(),
                    StandardCharsets.US_ASCII));
            String line;
            while ((line = response.readLine()) != null && !line.contains("tick")) {
                // the headers, then the first event
            }
            assertThat(line).as("the first event").isNotNull();
            assertThat(permits.held("stream:bob")).as("held while the response streams").isEqualTo(1);
        }
        permits.awaitGivenBack("stream:bob");
    }
}
