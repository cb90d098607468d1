package io.github.redissonratelimit.autoconfigure.diagnostics;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.convert.ConversionFailedException;

/**
 * Explains a {@code ratelimit.*} value that names none of its setting's choices ({@code algorithm=token_buckett}),
 * listing them as the documentation writes them ({@code token-bucket}), where Spring Boot's analyzer would list the
 * Java constants ({@code TOKEN_BUCKET}).
 */
@Order(Ordered.HIGHEST_PRECEDENCE) // ahead of Spring Boot's BindFailureAnalyzer, which takes every BindException
class UnknownRateLimitValueFailureAnalyzer extends AbstractFailureAnalyzer<BindException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, BindException cause) {
        Class<?> type = cause.getTarget().getType().resolve();
        String name = cause.getName().toString();
        if (type == null || !type.isEnum() || !name.startsWith("ratelimit.")
                || !(cause.getCause() instanceof ConversionFailedException)) {
            return null;
        }
        String accepted = Arrays.stream(type.getEnumConstants())
                .map(constant -> ((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'))
                .collect(Collectors.joining(", "));
        ConfigurationProperty property = cause.getProperty();
        StringBuilder description = new StringBuilder("The value of '").append(name)
                .append("' is none of the values it accepts.\n\n    Property: ").append(name).append('\n');
        if (property != null) {
            description.append("    Value:    \"").append(property.getValue()).append("\"\n");
            if (property.getOrigin() != null) {
                description.append("    Origin:   ").append(property.getOrigin()).append('\n');
            }
        }
        description.append("    Accepted: ").append(accepted).append('\n');
        return new FailureAnalysis(description.toString(), "Set " + name + " to one of: " + accepted + ".", cause);
    }
}
