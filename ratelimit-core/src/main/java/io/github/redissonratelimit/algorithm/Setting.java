package io.github.redissonratelimit.algorithm;

import java.util.Objects;

/**
 * One value of a limit's declaration and where it was set, named as a user writes it (an annotation attribute such as
 * {@code burst}, a property such as {@code ratelimit.routes.api.burst}), so that a refusal names what to change.
 */
public record Setting<T>(T value, String origin) {

    public Setting {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(origin, "origin");
    }

    /** {@code value} set at {@code origin}; null for a null value (not set). */
    public static <T> Setting<T> of(T value, String origin) {
        return value == null ? null : new Setting<>(value, origin);
    }
}
