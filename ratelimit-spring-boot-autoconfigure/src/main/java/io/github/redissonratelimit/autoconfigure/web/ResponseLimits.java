package io.github.redissonratelimit.autoconfigure.web;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.outcome.RateLimitOutcome;

/**
 * The limits one HTTP response reports: the latest decision of each limit (by display name) that a call
 * made while answering the request, with the limiter's state when it was read. Limits in shadow mode are left
 * out: clients see nothing of a limit until it is enforced. Safe for the calls of
 * one request that run in parallel (e.g. zipped reactive calls).
 */
public final class ResponseLimits {

    /** Request or exchange attribute under which the limits of the current response are kept. */
    public static final String ATTRIBUTE = ResponseLimits.class.getName();

    private final Map<String, Entry> entries = new LinkedHashMap<>();

    /**
     * Records a decision; {@code state} (may be null) is the limiter's state read after it. Failed decisions and
     * those of shadow limits are not recorded.
     */
    public synchronized void add(RateLimitOutcome outcome, LimitState state) {
        if (outcome.result() != RateLimitOutcome.Result.ERROR && !outcome.shadow()) {
            Entry earlier = entries.remove(outcome.displayName());
            entries.put(outcome.displayName(), new Entry(withDecisionState(outcome, earlier), state));
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

    /** Sets the state of a limit recorded earlier, unless a later decision replaced it. */
    public synchronized void state(Entry entry, LimitState state) {
        entries.replace(entry.outcome().displayName(), entry, new Entry(entry.outcome(), state));
    }

    public synchronized List<Entry> entries() {
        return new ArrayList<>(entries.values());
    }

    public synchronized boolean isEmpty() {
        return entries.isEmpty();
    }

    /** One limit of the response: its latest decision, and the limiter's state if it was read. */
    public record Entry(RateLimitOutcome outcome, LimitState state) {
    }
}
