package io.github.redissonratelimit.coldstart;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs {@link ColdStartBurstTest}'s load generator (the JDK's {@code HttpClient}, in the test's JVM) against a
 * stand-in server in this JVM before the application starts, so that the burst measures a cold application and not
 * a cold load generator too. Both share the machine's 2 CPUs: measured without this, the test's JVM used 2.5 to 2.9 s
 * of CPU during the 5 s burst against the application's 5.3 to 6.4 s (the client's classes loading and its code
 * interpreted and compiled), CPU that a load arriving from other machines does not take from an application.
 *
 * <p>The stand-in answers like the sample app (200 or 429 with a problem+json body, on the same paths and methods),
 * so the client runs the same code: request building, connection reuse, response reading.
 */
final class LoadGeneratorWarmUp {

    static final int REQUESTS = 10_000;
    static final int PER_SECOND = 2_000;

    /** The test's load generator: sends {@code total} requests at {@code perSecond} to {@code base}. */
    @FunctionalInterface
    interface LoadGenerator {

        Map<Integer, AtomicInteger> send(String base, String run, int total, int perSecond) throws InterruptedException;
    }

    private LoadGeneratorWarmUp() {
    }

    static void run(LoadGenerator generator) throws IOException, InterruptedException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        ExecutorService workers = Executors.newFixedThreadPool(4);
        AtomicInteger served = new AtomicInteger();
        server.setExecutor(workers);
        server.createContext("/", exchange -> answer(exchange, served.incrementAndGet()));
        server.start();
        try {
            Map<Integer, AtomicInteger> statuses = generator.send(
                    "http://127.0.0.1:" + server.getAddress().getPort(), "warm-up", REQUESTS, PER_SECOND);
            assertThat(statuses.keySet()).as("the stand-in answered every warm-up request: %s", statuses)
                    .isSubsetOf(200, 429);
        }
        finally {
            server.stop(0);
            workers.shutdownNow();
        }
    }

    private static void answer(HttpExchange exchange, int count) throws IOException {
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            boolean rejected = count % 25 == 0;
            byte[] body = (rejected
                    ? "{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,\"detail\":\"warm-up\"}"
                    : "{\"ok\":true}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type",
                    rejected ? "application/problem+json" : "application/json");
            exchange.getResponseHeaders().add("RateLimit", "\"warm-up\";r=1;t=1");
            // chunked, as Spring MVC writes its JSON and problem bodies: the client's chunked decoding is warmed too
            exchange.sendResponseHeaders(rejected ? 429 : 200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
