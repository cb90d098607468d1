package io.github.redissonratelimit.gateway;

import java.util.ArrayList;
import java.util.List;

import io.github.redissonratelimit.interceptor.RateLimitDecision;

/**
 * The decisions of one exchange that hold permits until it ends (an in-flight limit's): put in the Reactor context of
 * the gateway's filter chain by {@link ExchangeEndFilter}, since {@code RateLimiter.isAllowed} does not see the
 * exchange. Told each decision when it comes and the end of the exchange, in either order, it ends each decision once
 * both came.
 */
final class HeldUntilTheEnd {

    private final List<RateLimitDecision> held = new ArrayList<>(1);
    private boolean ended;

    /**
     * Keeps {@code decision} until the exchange ends when it holds permits until then; ends it at once when the
     * exchange ended already (cancelled while the decision was on the way) or when {@code exchange} is null (the
     * limiter asked outside the gateway's filter chain: nothing tells when that request ends).
     */
    static RateLimitDecision keep(HeldUntilTheEnd exchange, RateLimitDecision decision) {
        if (decision.holdsUntilTheEnd()) {
            if (exchange == null) {
                decision.end();
            }
            else {
                exchange.keep(decision);
            }
        }
        return decision;
    }

    private synchronized void keep(RateLimitDecision decision) {
        if (ended) {
            decision.end();
        }
        else {
            held.add(decision);
        }
    }

    /** The exchange ended: completed, failed or cancelled. */
    synchronized void end() {
        ended = true;
        held.forEach(RateLimitDecision::end);
        held.clear();
    }
}
