package io.github.redissonratelimit.resilience;

import io.github.redissonratelimit.outcome.CircuitState;

import java.time.Duration;
import java.util.Map;

/**
 * What the deadline and circuit breaker in front of Redis tell about outages, for the health indicator and
 * metrics (read from the {@link ResilientRateLimitBackend} in use, never by looking through a composed backend).
 */
public interface CircuitStates {

    /** {@code CLOSED} while Redis answers; with one circuit per master, the worst of them. */
    CircuitState getState();

    /** The state of each master's circuit, by master; empty before the first call. */
    Map<String, CircuitState> getMasterStates();

    /** Decisions that failed or timed out since start. */
    long getFailureCount();

    /**
     * Decisions that missed the deadline (their callers got the outage policy) and were answered within the liveness
     * time, since start: Redis was slow, not down, and the circuit counted them as successes.
     */
    long getLateAnswerCount();

    /** Decisions that missed the deadline and had no answer within the liveness time (failures), since start. */
    long getUnansweredCount();

    /** Calls that did not go to Redis because the circuit was open, since start. */
    long getSkippedCount();

    /** The longest a decision may take. */
    Duration getTimeout();
}
