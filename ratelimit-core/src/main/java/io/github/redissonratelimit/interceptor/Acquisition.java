package io.github.redissonratelimit.interceptor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.outcome.RateLimitOutcome;

/**
 * The limits of one call as their answers are read in declaration order: the grants, and how the call
 * ended (passed, rejected by one limit, or failed). Used by one call at a time.
 */
final class Acquisition {

    private final List<LimitCall> calls;
    private final List<RateLimitOutcome> outcomes;
    /** By the index of the call's limit: the decision that granted its permits, or null (no object per grant). */
    private final Decision[] granted;
    private LimitCall rejectedBy;
    private RateLimitExceededException rejection;
    private Throwable error;

    Acquisition(List<LimitCall> calls) {
        this.calls = calls;
        this.outcomes = new ArrayList<>(calls.size());
        this.granted = new Decision[calls.size()];
    }

    List<LimitCall> calls() {
        return calls;
    }

    /**
     * A shadow limit's rejection is recorded but neither ends the call nor is a grant.
     * @return whether the next limit should be asked
     */
    boolean decided(int index, Decision decision, long startNanos) {
        LimitCall call = calls.get(index);
        outcomes.add(call.outcome(decision, startNanos));
        if (decision.allowed()) {
            granted[index] = decision;
            return true;
        }
        if (call.operation().shadow()) {
            return true;
        }
        rejectedBy = call;
        rejection = call.rejection(decision);
        return false;
    }

    /**
     * A limit after the one that ended the call was granted too (the limits are asked at once): not an outcome
     * of the call, only a grant to give back.
     */
    void grantedAfterTheEnd(int index, Decision decision) {
        granted[index] = decision;
    }

    /** The backend gave no decision and the limit's policy lets the call go on without it. */
    void passed(int index, Throwable ex, long startNanos) {
        outcomes.add(calls.get(index).failure(ex, startNanos));
    }

    void failed(int index, Throwable ex, long startNanos) {
        outcomes.add(calls.get(index).failure(ex, startNanos));
        error = ex;
    }

    boolean passed() {
        return rejection == null && error == null;
    }

    /** The grants of the call, in declaration order. */
    List<Grant> grants() {
        List<Grant> grants = new ArrayList<>(granted.length);
        for (int i = 0; i < granted.length; i++) {
            if (granted[i] != null) {
                grants.add(new Grant(calls.get(i), granted[i]));
            }
        }
        return grants;
    }

    /** Whether a limit that granted its permits charges by outcome: only then does the call's end need settling. */
    boolean chargedByOutcome() {
        for (int i = 0; i < granted.length; i++) {
            if (granted[i] != null && calls.get(i).operation().chargeWhen() != null) {
                return true;
            }
        }
        return false;
    }

    /** The grants to give back when the call did not pass, latest first. */
    List<Grant> grantsToRefund() {
        if (passed()) {
            return List.of();
        }
        List<Grant> latestFirst = grants();
        Collections.reverse(latestFirst);
        return latestFirst;
    }

    /** A grant was given back: what its decision said was left grows by the permits returned. */
    synchronized void refunded(LimitCall grant) {
        for (int i = 0; i < outcomes.size(); i++) {
            RateLimitOutcome outcome = outcomes.get(i);
            if (outcome.allowed() && outcome.limiterName().equals(grant.limiterName()) && outcome.state() != null) {
                outcomes.set(i, outcome.withState(new LimitState(outcome.state().available() + outcome.permits(),
                        outcome.state().nextPermitIn())));
                return;
            }
        }
    }

    List<RateLimitOutcome> outcomes() {
        return outcomes;
    }

    /** A limit of the call and the decision that granted its permits. */
    record Grant(LimitCall call, Decision decision) {
    }

    /** The limit that rejected the call, or null. */
    LimitCall rejectedBy() {
        return rejectedBy;
    }

    /** The rejection to throw (or hand to the fallback), or null. */
    RateLimitExceededException rejection() {
        return rejection;
    }

    /** What the backend threw, or null. */
    Throwable error() {
        return error;
    }
}
