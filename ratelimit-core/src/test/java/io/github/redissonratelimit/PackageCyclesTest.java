package io.github.redissonratelimit;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.test.architecture.PackageCycles;

/**
 * No package of ratelimit-core uses, directly or through others, a package that uses it, the root package (the
 * exceptions) included: each package can be read and changed knowing only the packages it uses.
 */
class PackageCyclesTest {

    @Test
    void packagesFormNoCycle() {
        PackageCycles.ofModuleOf(RateLimitException.class).check();
    }
}
