package io.github.redissonratelimit.resilience;

/** The states of the circuit breaker of {@link ResilientRateLimitBackend}. */
public enum CircuitState {

    /** Calls go to the backend. */
    CLOSED,

    /** Calls are refused without touching the backend. */
    OPEN,

    /** One probe call is with the backend; other calls are refused. */
    HALF_OPEN
}
