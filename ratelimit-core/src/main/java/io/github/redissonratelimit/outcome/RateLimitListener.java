package io.github.redissonratelimit.outcome;

import java.util.List;

import io.github.redissonratelimit.operation.RateLimitOperation;

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
     * Every limit of one call as it stands once the call is settled, for HTTP headers: {@code limits}, the outcomes
     * told to {@link #onOutcomes} followed by the limits asked together with the one that ended the call (which
     * {@link #onOutcomes} leaves out), each with what its limiter holds after the permits the call did not keep were
     * given back (a later limit rejected the call, its {@code chargeWhen} did not hold); and {@code notAsked}, the
     * limits after one whose answer, known at once (a rejection from memory), ended the call. Told after
     * {@link #onOutcomes}: at once, or, for a call whose limit charges by outcome, once the call has run and its
     * charges are settled (a multi-value reactive type: at once, since its response starts before it ends). Not
     * decisions: count those in {@link #onOutcomes}.
     */
    default void onSettled(List<RateLimitOutcome> limits, List<RateLimitOperation> notAsked) {
    }

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
