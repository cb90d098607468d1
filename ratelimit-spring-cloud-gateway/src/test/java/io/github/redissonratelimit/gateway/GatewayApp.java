package io.github.redissonratelimit.gateway;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.redisson.api.RedissonClient;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;

import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * A real gateway application in front of a real backend (which counts the requests that reach it), on a real Redis;
 * routes are given as {@code id -> path, filter arguments} and get the {@code RequestRateLimiter} filter.
 */
final class GatewayApp implements AutoCloseable {

    private static final String ROUTES = "--spring.cloud.gateway.server.webflux.routes[";

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final AtomicInteger hits;
    private final HttpServer backend;
    private final ConfigurableApplicationContext context;

    private GatewayApp(AtomicInteger hits, HttpServer backend, ConfigurableApplicationContext context) {
        this.hits = hits;
        this.backend = backend;
        this.context = context;
    }

    /**
     * @param routes route id to its path pattern and its {@code RequestRateLimiter} arguments, in order
     * @param properties further {@code --name=value} arguments
     */
    static GatewayApp start(Class<?> application, RedisEndpoint redis, Map<String, Route> routes,
            String... properties) throws IOException {
        AtomicInteger hits = new AtomicInteger();
        return start(application, redis, hits, startBackend(hits), routes, properties);
    }

    /**
     * With a backend that answers as {@code backend} does, each request on a thread of its own (so that one may
     * wait); {@link #backendHits()} counts nothing.
     */
    static GatewayApp start(Class<?> application, RedisEndpoint redis, HttpHandler backend, Map<String, Route> routes,
            String... properties) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", backend);
        server.setExecutor(Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "backend");
            thread.setDaemon(true);
            return thread;
        }));
        server.start();
        return start(application, redis, new AtomicInteger(), server, routes, properties);
    }

    private static GatewayApp start(Class<?> application, RedisEndpoint redis, AtomicInteger hits, HttpServer backend,
            Map<String, Route> routes, String... properties) {
        String backendUri = "http://127.0.0.1:" + backend.getAddress().getPort();
        List<String> arguments = new ArrayList<>(List.of("--server.port=0", "--spring.main.banner-mode=off",
                "--ratelimit.backend-timeout=5s", "--backend.uri=" + backendUri));
        int i = 0;
        for (Map.Entry<String, Route> route : routes.entrySet()) {
            String prefix = ROUTES + i++ + "].";
            arguments.add(prefix + "id=" + route.getKey());
            arguments.add(prefix + "uri=" + backendUri);
            arguments.add(prefix + "predicates[0]=Path=" + route.getValue().path());
            arguments.add(prefix + "filters[0].name=RequestRateLimiter");
            route.getValue().arguments().forEach((name, value) -> arguments.add(prefix + "filters[0].args." + name
                    + "=" + value));
        }
        arguments.addAll(List.of(properties));
        try {
            ConfigurableApplicationContext context = new SpringApplicationBuilder(application)
                    .web(WebApplicationType.REACTIVE)
                    .initializers(c -> ((GenericApplicationContext) c).registerBean(RedissonClient.class,
                            redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown")))
                    .run(arguments.toArray(String[]::new));
            return new GatewayApp(hits, backend, context);
        }
        catch (RuntimeException ex) {
            backend.stop(0);
            throw ex;
        }
    }

    private static HttpServer startBackend(AtomicInteger hits) throws IOException {
        HttpServer backend = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        backend.createContext("/", exchange -> {
            hits.incrementAndGet();
            byte[] body = "backend".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        backend.start();
        return backend;
    }

    /** The requests that reached the backend. */
    int backendHits() {
        return hits.get();
    }

    ConfigurableApplicationContext context() {
        return context;
    }

    HttpResponse<String> get(String path, String user) throws IOException, InterruptedException {
        URI uri = URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port") + path);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30));
        if (user != null) {
            request.header("X-User", user);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() {
        context.close();
        backend.stop(0);
    }

    /** A route's path pattern and its {@code RequestRateLimiter} filter's arguments. */
    record Route(String path, Map<String, String> arguments) {
    }
}
