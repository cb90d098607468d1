package io.github.redissonratelimit.interceptor;

import java.util.ArrayList;
import java.util.List;

/**
 * The decisions of one request (a route's request, a gateway's exchange) that hold permits until it ends, an
 * in-flight limit's: told each decision when it comes ({@link #keep}) and the end of the request ({@link #end}), in
 * either order, it ends each decision ({@link RateLimitDecision#end()}) once both came. A decision that comes after
 * the end (the request was cancelled while its decision was on the way) is ended at once. Safe for use by several
 * threads; one instance per request.
 */
public final class HeldUntilTheEnd {

    private final List<RateLimitDecision> held = new ArrayList<>(1);
    private boolean ended;

    /**
     * Keeps {@code decision} until the request ends when it holds permits until then
     * ({@link RateLimitDecision#holdsUntilTheEnd()}), or ends it now when the request ended already; a decision that
     * holds nothing is left alone.
     * @return {@code decision}, so that it reads as a step of the chain that decides
     */
    public RateLimitDecision keep(RateLimitDecision decision) {
        if (decision.holdsUntilTheEnd()) {
            hold(decision);
        }
        return decision;
    }

    private synchronized void hold(RateLimitDecision decision) {
        if (ended) {
            decision.end();
        }
        else {
            held.add(decision);
        }
    }

    /**
     * The request ended (answered, failed or cancelled): the decisions kept so far, and any kept from now on, give
     * back their permits. Telling it more than once ends each decision once.
     */
    public synchronized void end() {
        ended = true;
        held.forEach(RateLimitDecision::end);
        held.clear();
    }
}
