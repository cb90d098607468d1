package io.github.redissonratelimit.gateway;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Where the limiter tells the response of one exchange how to answer a refusal: put in the Reactor context of the
 * gateway's filter chain by {@link RefusalAnswerFilter}, since {@code RateLimiter.isAllowed} does not see the exchange.
 */
final class RefusalSlot {

    private final AtomicReference<Refusal> refusal = new AtomicReference<>();

    void refused(Refusal value) {
        refusal.set(value);
    }

    /** Null unless the limiter refused the request. */
    Refusal refusal() {
        return refusal.get();
    }
}
