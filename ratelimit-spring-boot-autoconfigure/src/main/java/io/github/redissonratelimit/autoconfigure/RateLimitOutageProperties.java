package io.github.redissonratelimit.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.NestedConfigurationProperty;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;

/**
 * The part of {@link RateLimitProperties} about the calls Redis gives no decision for: how long a decision waits,
 * what a limit then does, when Redis is skipped, and how limits are kept in memory meanwhile. Bound as
 * {@code ratelimit.*} with the rest; a class of its own only to keep each class about one thing.
 */
abstract class RateLimitOutageProperties {

    /**
     * What a limit does when Redis gives no decision within backend-timeout (it is down, slow, or skipped
     * after repeated failures): 'local' limits it in memory at this instance's share of the rate (see
     * local-fallback), 'allow' runs the call (fail open), 'deny' refuses it with HTTP 503 (see deny-status).
     * @RateLimit(onBackendError = ...) overrides it per limit.
     */
    private BackendErrorPolicy onBackendError = BackendErrorPolicy.LOCAL;

    /**
     * Longest a rate limit decision waits for Redis, whatever Redisson's own timeouts and retries are: a
     * Redis outage adds at most this to a call (plus up to a twentieth of it, 1 to 50 ms, how often the
     * deadlines are checked).
     */
    private Duration backendTimeout = Duration.ofMillis(100);

    /**
     * HTTP status of a call refused because Redis gave no decision (on-backend-error 'deny'): 503 (Service
     * Unavailable) or, to look like a rejection to clients, 429 (Too Many Requests).
     */
    private int denyStatus = 503;

    /**
     * After repeated failures Redis is skipped for a short while instead of making every call wait for it.
     */
    @NestedConfigurationProperty
    private final CircuitBreakerProperties circuitBreaker = new CircuitBreakerProperties();

    /**
     * Limiting in memory, at each instance's share of the rate, while Redis gives no decision (on-backend-error
     * 'local').
     */
    @NestedConfigurationProperty
    private final LocalFallbackProperties localFallback = new LocalFallbackProperties();

    public BackendErrorPolicy getOnBackendError() {
        return onBackendError;
    }

    public void setOnBackendError(BackendErrorPolicy onBackendError) {
        this.onBackendError = onBackendError;
    }

    public Duration getBackendTimeout() {
        return backendTimeout;
    }

    public void setBackendTimeout(Duration backendTimeout) {
        this.backendTimeout = backendTimeout;
    }

    public int getDenyStatus() {
        return denyStatus;
    }

    public void setDenyStatus(int denyStatus) {
        this.denyStatus = denyStatus;
    }

    public CircuitBreakerProperties getCircuitBreaker() {
        return circuitBreaker;
    }

    public LocalFallbackProperties getLocalFallback() {
        return localFallback;
    }

    /** Checks the values of this part; {@link RateLimitProperties} checks the rest. */
    void validateOutage(PropertyErrors errors) {
        errors.require(onBackendError != null && onBackendError != BackendErrorPolicy.DEFAULT, "onBackendError",
                "'" + (onBackendError == null ? "" : onBackendError.name().toLowerCase()) + "'",
                "must be 'local', 'allow' or 'deny'");
        errors.require(backendTimeout != null && !backendTimeout.isNegative() && !backendTimeout.isZero(),
                "backendTimeout", backendTimeout, "must be positive, e.g. 100ms,");
        errors.require(denyStatus >= 400 && denyStatus <= 599, "denyStatus", denyStatus,
                "must be an HTTP error status such as 503 or 429");
        errors.group("localFallback", localFallback::validate);
        errors.group("circuitBreaker", circuitErrors -> circuitBreaker.validate(circuitErrors, backendTimeout));
    }
}
