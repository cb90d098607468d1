package io.github.redissonratelimit.outcome;

import java.util.List;

/**
 * The one listener type of the library: told what the limits of each limited call decided (metrics, HTTP
 * headers), and, through the default methods, what a Redis outage costs (failures, calls that skipped Redis,
 * circuit breaker changes). Skipped limits (by {@code condition} or {@code skipIf}) have no outcome.
 *
 * <p>Called once per call, after its last limit decided and before the method (or its fallback)
 * runs; for reactive and {@code CompletableFuture} methods on the thread that completed the decision,
 * often a Redis event loop thread, so implementations must not block. An exception thrown here is
 * logged and does not affect the call.
 *
 * <p>For a method returning a reactive type, a listener found in the subscriber's Reactor {@code Context}
 * under the key {@code RateLimitListener.class} is told as well: that is how a WebFlux filter learns the
 * decisions of its own exchange.
 */
@FunctionalInterface
public interface RateLimitListener {

    /** @param outcomes the decisions of one call, in the order the limits were checked */
    void onOutcomes(List<RateLimitOutcome> outcomes);

    /**
     * Redis failed, or did not answer within the deadline, for a decision on {@code limiterName} (told by
     * {@link io.github.redissonratelimit.resilience.ResilientRateLimitBackend}, on the thread that saw it fail).
     */
    default void onBackendFailure(String limiterName, Throwable error) {
    }

    /** A decision on {@code limiterName} did not go to Redis because the circuit is open. */
    default void onBackendSkipped(String limiterName) {
    }

    /** The circuit breaker in front of Redis changed state. */
    default void onCircuitStateChange(CircuitState from, CircuitState to) {
    }

    /**
     * The circuit breaker in front of the Redis master {@code master} changed state: on a Redis Cluster each
     * master has its own ({@code host:port}); a single server or Sentinel has one, {@code "redis"}. The default
     * tells {@link #onCircuitStateChange(CircuitState, CircuitState)}.
     */
    default void onCircuitStateChange(String master, CircuitState from, CircuitState to) {
        onCircuitStateChange(from, to);
    }
}
