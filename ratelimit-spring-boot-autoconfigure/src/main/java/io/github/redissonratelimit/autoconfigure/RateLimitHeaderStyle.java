package io.github.redissonratelimit.autoconfigure;

/** Which set of rate limit headers responses carry ({@code ratelimit.headers.style}). */
public enum RateLimitHeaderStyle {

    /** {@code RateLimit-Policy} and {@code RateLimit}, as draft-ietf-httpapi-ratelimit-headers names them. */
    IETF,

    /** {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and {@code X-RateLimit-Reset}. */
    LEGACY,

    /**
     * The IETF fields, and beside them the headers of Spring Cloud Gateway's {@code RedisRateLimiter} for clients
     * that read those: {@code X-RateLimit-Remaining}, {@code X-RateLimit-Replenish-Rate},
     * {@code X-RateLimit-Burst-Capacity} and {@code X-RateLimit-Requested-Tokens}.
     */
    GATEWAY
}
