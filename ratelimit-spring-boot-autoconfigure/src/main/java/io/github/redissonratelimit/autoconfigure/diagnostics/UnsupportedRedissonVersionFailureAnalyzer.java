package io.github.redissonratelimit.autoconfigure.diagnostics;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import io.github.redissonratelimit.UnsupportedRedissonVersionException;

/** Explains a startup failure caused by a Redisson version the rate limiter cannot run on. */
class UnsupportedRedissonVersionFailureAnalyzer extends AbstractFailureAnalyzer<UnsupportedRedissonVersionException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnsupportedRedissonVersionException cause) {
        String description = "The Redisson on the class path cannot run @RateLimit.\n\n"
                + "    Found:     org.redisson:redisson " + cause.getVersion() + "\n"
                + "    Problem:   " + cause.getProblem() + "\n"
                + "    Supported: " + cause.getSupportedVersions() + "\n";
        String action = "Use a supported Redisson: set the version of org.redisson:redisson and "
                + "org.redisson:redisson-spring-boot-starter (for example <redisson.version> in your pom) to one in that "
                + "range, or remove your pin to get the one ratelimit-spring-boot-starter brings. `mvn dependency:tree "
                + "-Dincludes=org.redisson` or `gradle dependencyInsight --dependency redisson` shows where the version "
                + "comes from.";
        return new FailureAnalysis(description, action, cause);
    }
}
