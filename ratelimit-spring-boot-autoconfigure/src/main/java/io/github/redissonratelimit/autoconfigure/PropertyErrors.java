package io.github.redissonratelimit.autoconfigure;

import java.util.function.Consumer;

import org.springframework.validation.Errors;

/**
 * The binding errors of {@link RateLimitProperties#validate}, for one group of properties: each rejected value is a
 * field error whose message starts with the property's name, then what it must be, the value, and the fix if any.
 */
final class PropertyErrors {

    private final Errors errors;
    private final String prefix;

    PropertyErrors(Errors errors, String prefix) {
        this.errors = errors;
        this.prefix = prefix;
    }

    /** Validates the group bound under {@code field} (e.g. {@code pipelining}). */
    void group(String field, Consumer<PropertyErrors> validation) {
        group(field, dashed(field), validation);
    }

    /** Validates the group at {@code path} (e.g. {@code policies[checkout]}), named {@code property}. */
    void group(String path, String property, Consumer<PropertyErrors> validation) {
        errors.pushNestedPath(path);
        try {
            validation.accept(new PropertyErrors(errors, prefix + property + "."));
        }
        finally {
            errors.popNestedPath();
        }
    }

    /** Unless {@code valid}: "<property> <rule> but was <value>". */
    void require(boolean valid, String field, Object value, String rule) {
        require(valid, field, value, rule, null);
    }

    /** Unless {@code valid}: "<property> <rule> but was <value>; <fix>". */
    void require(boolean valid, String field, Object value, String rule, String fix) {
        if (!valid) {
            reject(field, name(field) + " " + rule + " but was " + value + (fix == null ? "" : "; " + fix));
        }
    }

    void atLeast(long min, String field, long value) {
        require(value >= min, field, value, "must be at least " + min);
    }

    void reject(String field, String message) {
        errors.rejectValue(field, "invalid", message);
    }

    /** The property bound to {@code field}, e.g. {@code ratelimit.pipelining.max-in-flight}. */
    String name(String field) {
        return prefix + dashed(field);
    }

    private static String dashed(String field) {
        return field.replaceAll("([A-Z])", "-$1").toLowerCase();
    }
}
