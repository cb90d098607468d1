package io.github.redissonratelimit.outcome;

/**
 * The states of a circuit breaker in front of Redis, as {@link RateLimitListener#onCircuitStateChange(String,
 * CircuitState, CircuitState)} is told them (the breakers are those of
 * {@code io.github.redissonratelimit.resilience.ResilientRateLimitBackend}).
 */
public enum CircuitState {

    /** Calls go to the backend. */
    CLOSED,

    /** Calls are refused without touching the backend. */
    OPEN,

    /** One probe call is with the backend; other calls are refused. */
    HALF_OPEN
}
