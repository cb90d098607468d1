package io.github.redissonratelimit.test.redis;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import redis.embedded.RedisExecProvider;

/**
 * Finds a redis-server executable: {@code REDIS_SERVER_BIN} if set, else the one bundled in
 * {@code org.signal:embedded-redis} (7.0.15, extracted once to a temporary file).
 */
public final class RedisBinary {

    private static volatile Path cached;

    private RedisBinary() {
    }

    public static Path path() {
        Path path = cached;
        if (path == null) {
            synchronized (RedisBinary.class) {
                path = cached;
                if (path == null) {
                    path = locate();
                    cached = path;
                }
            }
        }
        return path;
    }

    private static Path locate() {
        String explicit = System.getenv("REDIS_SERVER_BIN");
        if (explicit != null && !explicit.isBlank()) {
            Path path = Path.of(explicit);
            if (!Files.isExecutable(path)) {
                throw new IllegalStateException("REDIS_SERVER_BIN=" + explicit + " is not an executable file");
            }
            return path;
        }
        try {
            File extracted = RedisExecProvider.defaultProvider().get();
            if (!extracted.canExecute() && !extracted.setExecutable(true)) {
                throw new IllegalStateException("Cannot make " + extracted + " executable");
            }
            return extracted.toPath();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot extract the redis-server bundled with embedded-redis", ex);
        }
    }
}
