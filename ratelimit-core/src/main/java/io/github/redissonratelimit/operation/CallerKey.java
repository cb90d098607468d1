package io.github.redissonratelimit.operation;

import java.util.Objects;

/**
 * How the callers of a limit keyed outside a method (a URL route, a gateway route) are told apart: the key as
 * declared, and what the limit puts before each key's value to make its logical key.
 *
 * @param source the key as declared (an expression, a resolver's name), for listings and messages
 * @param prefix the beginning of every logical key of the limit ({@code api:}), or {@code ""} when its limiters are
 *        named by the key's value alone and so shared with every limit whose key gives the same value
 */
public record CallerKey(String source, String prefix) {

    public CallerKey {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(prefix, "prefix");
    }

    /** Whether the limit's limiters are named by the key's value alone, shared with other limits. */
    public boolean shared() {
        return prefix.isEmpty();
    }

    /** The logical key of a caller whose key is {@code value}. */
    public String logicalKey(String value) {
        return prefix + value;
    }
}
