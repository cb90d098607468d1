package io.github.redissonratelimit.autoconfigure.web;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.outcome.RateLimitOutcome;

/**
 * The limits one HTTP response reports, in the order first met: the latest decision of each limit (by display name)
 * that a call made while answering the request, with the limiter's state when it was read. Limits in shadow mode are
 * left out: clients see nothing of a limit until it is enforced. Safe for the calls of one request that run in
 * parallel (e.g. zipped reactive calls).
 */
public final class ResponseLimits {

    /** Request or exchange attribute under which the limits of the current response are kept. */
    public static final String ATTRIBUTE = ResponseLimits.class.getName();

    /** The one limit while there is one: most responses report one, and need no map for it. */
    private Entry only;
    /** Every limit by display name once there are two or more, else null. */
    private Map<String, Entry> entries;

    /**
     * Records a decision; {@code state} (may be null) is the limiter's state read after it. Failed decisions and
     * those of shadow limits are not recorded.
     */
    public synchronized void add(RateLimitOutcome outcome, LimitState state) {
        if (outcome.result() != RateLimitOutcome.Result.ERROR && !outcome.shadow()) {
            Entry earlier = get(outcome.displayName());
            put(outcome.displayName(), new Entry(withDecisionState(outcome, earlier), state));
        }
    }

    /**
     * A rejection as its exception tells it (which does not carry what the limiter held) keeps the state of the same
     * rejection recorded earlier from its decision: the permits a call refused for its cost left.
     */
    private static RateLimitOutcome withDecisionState(RateLimitOutcome outcome, Entry earlier) {
        if (earlier == null || outcome.state() != null || !outcome.rejected() || !earlier.outcome().rejected()
                || earlier.outcome().state() == null || !earlier.outcome().limiterName().equals(outcome.limiterName())) {
            return outcome;
        }
        return outcome.withState(earlier.outcome().state());
    }

    public synchronized void addAll(List<RateLimitOutcome> outcomes) {
        outcomes.forEach(outcome -> add(outcome, null));
    }

    /**
     * Records limits of a call that were not asked (an answer known at once ended the call before them): their policy
     * is reported, not their permits. A limit recorded already keeps what it has.
     */
    public synchronized void addNotAsked(List<RateLimitOperation> limits) {
        for (int i = 0; i < limits.size(); i++) {
            RateLimitOperation limit = limits.get(i);
            if (!limit.shadow() && get(limit.displayName()) == null) {
                put(limit.displayName(), new Entry(new RateLimitOutcome(limit.name(), limit.displayName(), null, null,
                        limit.spec(), 0, RateLimitOutcome.Result.ALLOWED, Duration.ZERO, Duration.ZERO, null, null),
                        null, true));
            }
        }
    }

    /** Sets the state of a limit recorded earlier, unless a later decision replaced it. */
    public synchronized void state(Entry entry, LimitState state) {
        if (entry.equals(get(entry.outcome().displayName()))) {
            put(entry.outcome().displayName(), new Entry(entry.outcome(), state));
        }
    }

    /** The limits recorded so far, in the order first met: a snapshot. */
    public synchronized List<Entry> entries() {
        if (entries != null) {
            return List.copyOf(entries.values());
        }
        return only == null ? List.of() : List.of(only);
    }

    public synchronized boolean isEmpty() {
        return only == null && entries == null;
    }

    private Entry get(String displayName) {
        if (entries != null) {
            return entries.get(displayName);
        }
        return only != null && only.outcome().displayName().equals(displayName) ? only : null;
    }

    /** Replaces the limit's entry where it stands, or adds it last. */
    private void put(String displayName, Entry entry) {
        if (entries != null) {
            entries.put(displayName, entry);
        }
        else if (only == null || only.outcome().displayName().equals(displayName)) {
            only = entry;
        }
        else {
            entries = new LinkedHashMap<>();
            entries.put(only.outcome().displayName(), only);
            entries.put(displayName, entry);
            only = null;
        }
    }

    /**
     * One limit of the response: its latest decision, and the limiter's state if it was read; or, when
     * {@code policyOnly}, a limit that was not asked, of which only {@code outcome}'s names and limit tell.
     */
    public record Entry(RateLimitOutcome outcome, LimitState state, boolean policyOnly) {

        public Entry(RateLimitOutcome outcome, LimitState state) {
            this(outcome, state, false);
        }
    }
}
