package io.github.redissonratelimit.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import redis.embedded.RedisServer;

/**
 * Starts the redis-server bundled with embedded-redis on a free loopback port before the context starts,
 * so the sample runs with nothing but a JDK. It stays out of the way when {@code sample.embedded-redis=false}
 * or when {@code spring.data.redis.host}, {@code .port} or {@code .url} point at a real Redis.
 */
public class EmbeddedRedisInitializer implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    private static final Log logger = LogFactory.getLog(EmbeddedRedisInitializer.class);

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        ConfigurableEnvironment environment = context.getEnvironment();
        if (!environment.getProperty("sample.embedded-redis", Boolean.class, true)
                || environment.containsProperty("spring.data.redis.host")
                || environment.containsProperty("spring.data.redis.port")
                || environment.containsProperty("spring.data.redis.url")) {
            return;
        }
        int port = freePort();
        RedisServer server = RedisServer.builder().port(port).bind("127.0.0.1")
                .setting("save \"\"").setting("appendonly no").build();
        server.start();
        logger.info("Started embedded redis-server on 127.0.0.1:" + port
                + " (set sample.embedded-redis=false or spring.data.redis.host/port to use a real Redis)");
        environment.getPropertySources().addFirst(new MapPropertySource("embeddedRedis",
                Map.of("spring.data.redis.host", "127.0.0.1", "spring.data.redis.port", port)));
        context.addApplicationListener(event -> {
            if (event instanceof ContextClosedEvent closed && closed.getApplicationContext() == context) {
                server.stop();
            }
        });
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
