package io.github.redissonratelimit.interceptor;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.outcome.RateLimitOutcome;

/** How the limits of one request decided through a {@link RateLimitDecider} ended. */
public final class RateLimitDecision {

    private final Acquisition acquisition;
    private final RateLimitAspectSupport support;

    RateLimitDecision(Acquisition acquisition, RateLimitAspectSupport support) {
        this.acquisition = acquisition;
        this.support = support;
    }

    /** Whether the request may go on: no limit rejected it, and no limit without a decision refused it. */
    public boolean passed() {
        return acquisition.passed();
    }

    /** The rejection, naming the limit and when to retry; null unless a limit rejected the request. */
    public RateLimitExceededException rejection() {
        return acquisition.rejection();
    }

    /**
     * What refused the request when a limit got no decision and its outage policy is {@code DENY} (a
     * {@link io.github.redissonratelimit.RateLimitBackendUnavailableException}); null otherwise.
     */
    public Throwable error() {
        return acquisition.error();
    }

    /** What each limit decided, in order, for metrics and headers. */
    public List<RateLimitOutcome> outcomes() {
        return acquisition.outcomes();
    }

    /**
     * Every limit the request went through, as it stands now: {@link #outcomes()}, then the limits asked with the one
     * that ended it; each with what its limiter holds after the permits given back so far ({@link #giveBack}).
     */
    public List<RateLimitOutcome> limits() {
        return acquisition.limits();
    }

    /**
     * Tells the interceptor's listeners, and {@code extraListener} if not null, the outcomes and every limit
     * ({@link RateLimitListener#onSettled}, as {@link #limits()} are now).
     */
    public void notifyListeners(RateLimitListener extraListener) {
        support.notifyListeners(acquisition, extraListener, false);
    }

    /**
     * For a request that passed and turned out not to count (charging by outcome): gives back, through the decision
     * stack, the permits of the limits {@code notCharged} accepts. The stage completes, never exceptionally, once
     * they are back (a refund that fails is logged; its permits return when the grant leaves the window).
     */
    public CompletionStage<Void> giveBack(Predicate<RateLimitOperation> notCharged) {
        List<CompletableFuture<Void>> refunded = new ArrayList<>(1);
        for (Acquisition.Grant grant : acquisition.grants()) {
            if (notCharged.test(grant.call().operation())) {
                refunded.add(support.refunds().giveBack(acquisition, grant).toCompletableFuture());
            }
        }
        return CompletableFuture.allOf(refunded.toArray(CompletableFuture[]::new));
    }

    /** Whether the request passed holding permits until it ends (an in-flight limit's): call {@link #end} then. */
    public boolean holdsUntilTheEnd() {
        return acquisition.holdsUntilTheEnd();
    }

    /**
     * The request ended (answered, failed or aborted): the permits it held until its end go back through the
     * decision stack, without the caller waiting. Telling it more than once gives them back once.
     */
    public void end() {
        support.endCall(acquisition);
    }
}
