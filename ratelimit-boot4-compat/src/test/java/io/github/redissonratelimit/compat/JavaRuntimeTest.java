package io.github.redissonratelimit.compat;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Proves which JVM ran the suite: the Java 25 surefire execution sets {@code compat.expected-java-feature},
 * so a run that silently fell back to the build's JDK fails here.
 */
class JavaRuntimeTest {

    @Test
    void runsOnTheExpectedJava() {
        String expected = System.getProperty("compat.expected-java-feature");
        int feature = Runtime.version().feature();
        System.out.println("Boot 4 compatibility suite (Spring Boot " + org.springframework.boot.SpringBootVersion.getVersion()
                + ") on Java " + Runtime.version() + " (" + System.getProperty("java.vm.vendor") + ")");
        assertThat(feature).isGreaterThanOrEqualTo(17);
        if (expected != null) {
            assertThat(feature).isEqualTo(Integer.parseInt(expected));
        }
    }
}
