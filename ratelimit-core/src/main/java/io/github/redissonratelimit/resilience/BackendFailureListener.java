package io.github.redissonratelimit.resilience;

/**
 * Told when the rate limit backend fails, when calls skip it and when its circuit changes state; a
 * hook for metrics. Called on the request thread: implementations must be quick and must not throw.
 */
public interface BackendFailureListener {

    /** Redis failed or did not answer within the deadline for a call on {@code limiterName}. */
    default void onFailure(String limiterName, Throwable error) {
    }

    /** A call on {@code limiterName} did not go to Redis because the circuit is open. */
    default void onSkipped(String limiterName) {
    }

    default void onStateChange(CircuitBreaker.State from, CircuitBreaker.State to) {
    }
}
