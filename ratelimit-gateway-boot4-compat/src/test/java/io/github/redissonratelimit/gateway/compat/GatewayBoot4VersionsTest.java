package io.github.redissonratelimit.gateway.compat;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;

/**
 * That the gateway module's tests, compiled into this module, ran on Spring Boot 4 (this pom's parent) and Spring
 * Cloud Gateway 5.0, not on the Boot 3.5 / Gateway 4.3 the module is built with.
 */
class GatewayBoot4VersionsTest {

    @Test
    void runsOnSpringBoot4AndSpringCloudGateway5() {
        assertThat(SpringBootVersion.getVersion()).startsWith("4.0.");
        String expectedBoot = System.getProperty("compat.expected-boot-version");
        if (expectedBoot != null) {
            assertThat(SpringBootVersion.getVersion()).isEqualTo(expectedBoot);
        }
        assertThat(AbstractRateLimiter.class.getPackage().getImplementationVersion()).startsWith("5.0.");
    }
}
