package io.github.redissonratelimit.test.redis;

import java.net.URI;

/**
 * The one Redis shared by the tests of a JVM. In order of preference: {@code REDIS_URL}
 * ({@code redis://host:port}); Testcontainers {@code redis:7} when a Docker engine answers;
 * a redis-server process started here (see {@link RedisBinary}).
 */
public final class TestRedis {

    private static volatile RedisEndpoint endpoint;

    private TestRedis() {
    }

    public static RedisEndpoint endpoint() {
        RedisEndpoint current = endpoint;
        if (current == null) {
            synchronized (TestRedis.class) {
                current = endpoint;
                if (current == null) {
                    current = start();
                    endpoint = current;
                }
            }
        }
        return current;
    }

    private static RedisEndpoint start() {
        String url = System.getenv("REDIS_URL");
        if (url != null && !url.isBlank()) {
            URI uri = URI.create(url);
            return new RedisEndpoint(uri.getHost(), uri.getPort() > 0 ? uri.getPort() : 6379, "REDIS_URL");
        }
        RedisEndpoint container = TestcontainersRedis.tryStart();
        if (container != null) {
            return container;
        }
        RedisServerProcess server = RedisServerProcess.startOnFreePort();
        System.out.println("[test-redis] no REDIS_URL and no Docker engine: started redis-server on 127.0.0.1:"
                + server.port() + " from " + RedisBinary.path());
        Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "stop-test-redis"));
        return new RedisEndpoint("127.0.0.1", server.port(), "redis-server process (" + RedisBinary.path() + ")");
    }
}
