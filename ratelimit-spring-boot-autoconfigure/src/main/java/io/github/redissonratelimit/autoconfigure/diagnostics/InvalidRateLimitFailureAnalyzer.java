package io.github.redissonratelimit.autoconfigure.diagnostics;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import io.github.redissonratelimit.InvalidRateLimitException;

/** Explains a startup failure caused by a {@code @RateLimit} declaration that cannot work. */
class InvalidRateLimitFailureAnalyzer extends AbstractFailureAnalyzer<InvalidRateLimitException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidRateLimitException cause) {
        String description = "A @RateLimit declaration is invalid.\n\n"
                + "    Method:    " + cause.getMethod() + "\n"
                + "    Attribute: " + cause.getAttribute() + "\n"
                + "    Problem:   " + cause.getAttribute() + " " + cause.getProblem() + "\n";
        return new FailureAnalysis(description, "Fix the declaration: " + cause.getFix() + ".", cause);
    }
}
