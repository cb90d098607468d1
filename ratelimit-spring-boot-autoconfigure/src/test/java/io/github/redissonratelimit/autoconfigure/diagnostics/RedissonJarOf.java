package io.github.redissonratelimit.autoconfigure.diagnostics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;

import io.github.redissonratelimit.redis.RedissonCompatibility;

/** A class loader that delegates to the tests' own but says the Redisson jar is of another version. */
final class RedissonJarOf {

    private RedissonJarOf() {
    }

    /** Writes the jar's {@code pom.properties} for {@code version} under {@code dir} and answers it for the jar's. */
    static ClassLoader version(String version, Path dir) {
        Path pom = dir.resolve(RedissonCompatibility.POM_PROPERTIES_PATH);
        try {
            Files.createDirectories(pom.getParent());
            Files.writeString(pom, "groupId=org.redisson\nartifactId=redisson\nversion=" + version + "\n");
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return new ClassLoader(RedissonJarOf.class.getClassLoader()) {
            @Override
            public URL getResource(String name) {
                if (name.equals(RedissonCompatibility.POM_PROPERTIES_PATH)) {
                    try {
                        return pom.toUri().toURL();
                    }
                    catch (IOException ex) {
                        throw new UncheckedIOException(ex);
                    }
                }
                return super.getResource(name);
            }
        };
    }
}
