package io.github.redissonratelimit.outcome;

import java.util.List;

/**
 * Told what the limits of each limited call decided: metrics, HTTP headers. Skipped limits (by
 * {@code condition} or {@code skipIf}) have no outcome.
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
}
