package io.github.redissonratelimit.autoconfigure;

/**
 * Whose limiter a keyed limit without an annotation (a {@code ratelimit.routes} entry, a gateway route) counts in.
 */
public enum KeyScope {

    /**
     * The limit's own: the logical key is {@code <limit name>:<key>} ({@code rate_limit:{api:127.0.0.1}}), so two
     * routes keyed alike (say {@code /api/**} and {@code /api/export/**}, both by {@code remoteAddress}) count apart,
     * and every caller of one limit can be reset at once. The default.
     */
    ROUTE,

    /**
     * The key as it evaluates ({@code rate_limit:{127.0.0.1}}), shared with every limit whose key gives the same
     * value: for sharing one limiter on purpose, and to keep the counts of limiters named that way before.
     */
    SHARED;

    /** What the logical key of each caller of the limit {@code limitName} starts with ({@code ""}: nothing). */
    public String keyPrefix(String limitName) {
        return this == SHARED ? "" : limitName + ":";
    }
}
