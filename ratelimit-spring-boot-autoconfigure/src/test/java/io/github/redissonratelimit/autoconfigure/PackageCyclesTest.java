package io.github.redissonratelimit.autoconfigure;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.test.architecture.PackageCycles;

/**
 * No package of the auto-configuration uses, directly or through others, a package that uses it, the root package
 * (the auto-configuration and its properties) included.
 */
class PackageCyclesTest {

    @Test
    void packagesFormNoCycle() {
        PackageCycles.ofModuleOf(RateLimitAutoConfiguration.class).check();
    }
}
