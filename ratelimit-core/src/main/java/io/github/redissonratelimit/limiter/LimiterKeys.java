package io.github.redissonratelimit.limiter;

/**
 * The Redis keys RRateLimiter keeps for a limiter {@code name}: the config hash {@code name}, the free
 * permits {@code name:value} and the grants {@code name:permits} (PER_CLIENT adds {@code :<client id>}).
 * Redisson wraps a name without braces in a hash tag ({@code {name}:value}); names built by
 * {@link io.github.redissonratelimit.key.LimiterNaming} always carry one, so the suffix is appended.
 */
public final class LimiterKeys {

    private LimiterKeys() {
    }

    public static String value(String name) {
        return suffix(name, "value");
    }

    public static String permits(String name) {
        return suffix(name, "permits");
    }

    /** The PER_CLIENT form of a {@link #value} or {@link #permits} key, for the Redisson instance {@code clientId}. */
    public static String ofClient(String key, String clientId) {
        return key + ":" + clientId;
    }

    private static String suffix(String name, String suffix) {
        return name.contains("{") ? name + ":" + suffix : "{" + name + "}:" + suffix;
    }
}
