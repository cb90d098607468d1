package io.github.redissonratelimit.autoconfigure.diagnostics;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import io.github.redissonratelimit.autoconfigure.names.UnknownProperty;
import io.github.redissonratelimit.autoconfigure.names.UnknownRateLimitPropertiesException;

/** Explains a startup failure caused by properties under {@code ratelimit.} that name no setting. */
class UnknownRateLimitPropertiesFailureAnalyzer extends AbstractFailureAnalyzer<UnknownRateLimitPropertiesException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnknownRateLimitPropertiesException cause) {
        StringBuilder description = new StringBuilder(
                "Properties under 'ratelimit.' name no setting; they would be ignored.\n");
        for (UnknownProperty property : cause.getProperties()) {
            description.append("\n    Property:     ").append(property.name()).append('\n');
            if (property.origin() != null) {
                description.append("    Origin:       ").append(property.origin()).append('\n');
            }
            description.append("    Did you mean: ").append(property.suggestion()).append('\n');
        }
        return new FailureAnalysis(description.toString(), "Correct or remove each property (the valid names are "
                + "in the configuration metadata your IDE completes). To be warned instead, set "
                + "ratelimit.unknown-properties=warn.", cause);
    }
}
