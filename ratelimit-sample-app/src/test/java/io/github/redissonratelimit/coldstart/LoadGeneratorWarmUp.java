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
 * a cold load generator too: both share the machine's CPUs, and a cold client's first requests load classes and run
 * interpreted, its sends bunching up behind them. Measured in alternating runs, the application missed deadlines
 * with a cold client where it did not with a warmed one ({@code docs/operations.md#warm-start}). What the client's
 * JVM costs in CPU during the burst (its compiler) is cut by the JVM it runs in, see {@code ratelimit-sample-app/pom.xml}.
 *
 * <p>The stand-in answers like the sample app (200 or 429 with a problem+json body, on the same paths and methods),
 * so the client runs the same code: request building, connection reuse, response reading.
 */
final class LoadGeneratorWarmUp {

    private static final int REQUESTS = 10_000;
    private static final int PER_SECOND = 2_000;
    private static final int BACKLOG = 4_096;

    /** The test's load generator: sends {@code total} requests at {@code perSecond} to {@code base}. */
    @FunctionalInterface
    interface LoadGenerator {

        Map<Integer, AtomicInteger> send(String base, String run, int total, int perSecond) throws InterruptedException;
    }

    private LoadGeneratorWarmUp() {
    }

    static void run(LoadGenerator generator) throws IOException, InterruptedException {
        // The JDK's server closes a connection that goes idle while 200 others are idle; the client may have taken
        // it from its pool for the next request already, and a POST is not retried ("header parser received no
        // bytes", 1 run in 30 on Java 25, 3 in 5 with a cap of 2). Read once, when the first server is built.
        System.setProperty("sun.net.httpserver.maxIdleConnections", "100000");
        // A backlog for the connections the client opens at once when the machine is slow (the default, 50, overflowed
        // on a loaded machine: 5 of 10,000 warm-up requests failed to connect)
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), BACKLOG);
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
