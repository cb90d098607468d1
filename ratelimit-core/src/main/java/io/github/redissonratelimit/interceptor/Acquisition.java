package io.github.redissonratelimit.interceptor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.operation.RateLimitOperation;
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
    /**
     * By index: the decision of a limit asked with the others after the one that ended the call, or null; null until
     * there is one (most calls pass, or have one limit).
     */
    private Decision[] afterTheEnd;
    /** By index: whether the grant was given back; null until one is. */
    private boolean[] givenBack;
    /** How many limits, from the first, were asked: the rest were not, after an answer known at once ended the call. */
    private int asked;
    private LimitCall rejectedBy;
    private RateLimitExceededException rejection;
    private Throwable error;

    Acquisition(List<LimitCall> calls) {
        this.calls = calls;
        this.outcomes = new ArrayList<>(calls.size());
        this.granted = new Decision[calls.size()];
        this.asked = calls.size();
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
     * A limit after the one that ended the call decided too (the limits are asked at once): not an outcome of the
     * call, but a limit it went through ({@link #limits}), and, when granted, a grant to give back.
     */
    void decidedAfterTheEnd(int index, Decision decision) {
        if (afterTheEnd == null) {
            afterTheEnd = new Decision[calls.size()];
        }
        afterTheEnd[index] = decision;
        if (decision.allowed()) {
            granted[index] = decision;
        }
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
                grants.add(new Grant(i, calls.get(i), granted[i]));
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

    /** Whether the call passed and a limit charges by outcome: its limits are settled once it has run. */
    boolean settlesAfterTheCall() {
        return passed() && chargedByOutcome();
    }

    /**
     * Whether the call passed holding a grant its call holds until it ends (an in-flight limit's): it is given back
     * then, on every exit path.
     */
    boolean holdsUntilTheEnd() {
        if (!passed()) {
            return false;
        }
        for (int i = 0; i < granted.length; i++) {
            if (granted[i] != null && calls.get(i).request().spec().algorithm().held()) {
                return true;
            }
        }
        return false;
    }

    /** The grants held until the call ends that were not given back yet. */
    synchronized List<Grant> heldGrants() {
        List<Grant> held = new ArrayList<>(1);
        for (int i = 0; i < granted.length; i++) {
            if (granted[i] != null && !isGivenBack(i) && calls.get(i).request().spec().algorithm().held()) {
                markGivenBack(i); // once: the end of a call may be told twice (a cancel racing a completion)
                held.add(new Grant(i, calls.get(i), granted[i]));
            }
        }
        return held;
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
    synchronized void refunded(int index) {
        markGivenBack(index);
        if (index < outcomes.size() && outcomes.get(index).allowed()) {
            outcomes.set(index, givenBack(outcomes.get(index)));
        }
    }

    /** Whether the grant of the limit at {@code index} was given back; called holding this object's lock. */
    private boolean isGivenBack(int index) {
        return givenBack != null && givenBack[index];
    }

    private void markGivenBack(int index) {
        if (givenBack == null) {
            givenBack = new boolean[calls.size()];
        }
        givenBack[index] = true;
    }

    private static RateLimitOutcome givenBack(RateLimitOutcome outcome) {
        LimitState state = outcome.state();
        if (state == null) {
            return outcome;
        }
        long capacity = outcome.limit().capacity();
        long available = Math.min(capacity, state.available() + outcome.permits());
        // a limiter back to full has nothing to wait for
        return outcome.withState(new LimitState(available, available >= capacity ? Duration.ZERO
                : state.nextPermitIn()));
    }

    /** Only the first {@code count} limits were asked. */
    void asked(int count) {
        asked = count;
    }

    /** The limits not asked, after one whose answer, known at once (a rejection from memory), ended the call. */
    List<RateLimitOperation> notAsked() {
        if (asked == calls.size()) {
            return List.of();
        }
        List<RateLimitOperation> notAsked = new ArrayList<>(calls.size() - asked);
        for (int i = asked; i < calls.size(); i++) {
            notAsked.add(calls.get(i).operation());
        }
        return notAsked;
    }

    /**
     * Every limit the call went through, as it stands now: its outcomes, then the limits asked with it after the one
     * that ended it; each with what its limiter holds after the grants given back so far.
     */
    synchronized List<RateLimitOutcome> limits() {
        if (outcomes.size() == calls.size()) {
            return outcomes; // the common case: every limit decided, refunds already in the outcomes
        }
        List<RateLimitOutcome> limits = new ArrayList<>(outcomes);
        for (int i = outcomes.size(); i < calls.size(); i++) {
            if (afterTheEnd != null && afterTheEnd[i] != null) {
                RateLimitOutcome outcome = calls.get(i).outcome(afterTheEnd[i], System.nanoTime());
                limits.add(isGivenBack(i) ? givenBack(outcome) : outcome);
            }
        }
        return limits;
    }

    List<RateLimitOutcome> outcomes() {
        return outcomes;
    }

    /** A limit of the call (its index among them) and the decision that granted its permits. */
    record Grant(int index, LimitCall call, Decision decision) {
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
