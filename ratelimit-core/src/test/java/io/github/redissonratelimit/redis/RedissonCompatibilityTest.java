package io.github.redissonratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.api.RScript;

import io.github.redissonratelimit.UnsupportedRedissonVersionException;

/** {@link RedissonCompatibility} on the Redisson of this build (4.x); the compat modules run 3.x. */
class RedissonCompatibilityTest {

    @Test
    void resolvesTheReplyTypesOfThisRedissonByName() {
        assertThat(RedissonCompatibility.LONG).isEqualTo(RScript.ReturnType.valueOf("LONG"));
        assertThat(RedissonCompatibility.LIST).isEqualTo(RScript.ReturnType.valueOf("LIST"));
    }

    @Test
    void readsTheVersionOfTheRedissonJar() {
        String version = RedissonCompatibility.version(RScript.class.getClassLoader());
        assertThat(version).isEqualTo(RScript.class.getPackage().getImplementationVersion()).startsWith("4.");
        assertThat(RedissonCompatibility.check()).isEqualTo(version);
    }

    @Test
    void acceptsTheSupportedVersionsAndUnknownOnes() {
        for (String version : new String[] { "3.24.3", "3.30.0", "3.52.0", "4.0.0", "4.7.0", "4.8.0-SNAPSHOT", "unknown" }) {
            assertThatNoException().as(version).isThrownBy(() -> RedissonCompatibility.check(version));
        }
        assertThatNoException().isThrownBy(() -> RedissonCompatibility.check((String) null));
    }

    @Test
    void refusesVersionsOlderThanTheOldestSupportedNamingTheVersionAndTheRange() {
        for (String version : new String[] { "3.24.2", "3.23.5", "3.0.0", "2.15.2" }) {
            assertThatThrownBy(() -> RedissonCompatibility.check(version)).as(version)
                    .isInstanceOfSatisfying(UnsupportedRedissonVersionException.class, ex -> {
                        assertThat(ex.getVersion()).isEqualTo(version);
                        assertThat(ex.getProblem()).isEqualTo("it is older than 3.24.3");
                        assertThat(ex.getSupportedVersions()).isEqualTo(UnsupportedRedissonVersionException.SUPPORTED_VERSIONS);
                        assertThat(ex.getMessage()).contains("Redisson " + version, "3.24.3 to 3.52.0",
                                "4.0.0 to 4.7.0");
                    });
        }
    }

    @Test
    void readsTheVersionThroughTheGivenClassLoader(@TempDir Path dir) throws IOException {
        Path pom = dir.resolve(RedissonCompatibility.POM_PROPERTIES_PATH);
        Files.createDirectories(pom.getParent());
        Files.writeString(pom, "groupId=org.redisson\nartifactId=redisson\nversion=3.17.7\n");
        ClassLoader old = new ClassLoader(getClass().getClassLoader()) {
            @Override
            public URL getResource(String name) {
                if (name.equals(RedissonCompatibility.POM_PROPERTIES_PATH)) {
                    try {
                        return pom.toUri().toURL();
                    }
                    catch (IOException ex) {
                        throw new IllegalStateException(ex);
                    }
                }
                return super.getResource(name);
            }
        };
        assertThat(RedissonCompatibility.version(old)).isEqualTo("3.17.7");
        assertThatThrownBy(() -> RedissonCompatibility.check(old))
                .isInstanceOf(UnsupportedRedissonVersionException.class)
                .hasMessageStartingWith("Redisson 3.17.7 is not supported by redisson-ratelimit: it is older than 3.24.3");
    }

    @Test
    void parsesVersions() {
        assertThat(RedissonCompatibility.parse("3.24.3")).containsExactly(3, 24, 3);
        assertThat(RedissonCompatibility.parse("4.7")).containsExactly(4, 7, 0);
        assertThat(RedissonCompatibility.parse("4.8.0-SNAPSHOT")).containsExactly(4, 8, 0);
        assertThat(RedissonCompatibility.parse("unknown")).isNull();
    }
}
