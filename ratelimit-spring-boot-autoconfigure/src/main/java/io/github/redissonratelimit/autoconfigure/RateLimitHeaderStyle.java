package io.github.redissonratelimit.autoconfigure;

/** Which set of rate limit headers responses carry ({@code ratelimit.headers.style}). */
public enum RateLimitHeaderStyle {

    /** {@code RateLimit-Policy} and {@code RateLimit}, as draft-ietf-httpapi-ratelimit-headers names them. */
    IETF,

    /** {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and {@code X-RateLimit-Reset}. */
    LEGACY
}
