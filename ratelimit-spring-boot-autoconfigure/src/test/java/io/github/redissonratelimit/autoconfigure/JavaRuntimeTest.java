package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;

/**
 * Proves which JVM ran the suite: the Java 25 surefire execution (profile {@code java25}) sets
 * {@code expected-java-feature}, so a run that silently fell back to the build's JDK fails here.
 */
class JavaRuntimeTest {

    @Test
    void runsOnTheExpectedJava() {
        String expected = System.getProperty("expected-java-feature");
        int feature = Runtime.version().feature();
        System.out.println("Auto-configuration suite (Spring Boot " + SpringBootVersion.getVersion() + ") on Java "
                + Runtime.version() + " (" + System.getProperty("java.vm.vendor") + ")");
        assertThat(feature).isGreaterThanOrEqualTo(17);
        if (expected != null) {
            assertThat(feature).isEqualTo(Integer.parseInt(expected));
        }
    }
}
