package io.github.redissonratelimit.autoconfigure.web;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.autoconfigure.HeadersProperties;
import io.github.redissonratelimit.autoconfigure.RateLimitHeaderStyle;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.outcome.RateLimitOutcome;

/**
 * Renders the rate limit headers of one response from its {@link ResponseLimits}; knows nothing of
 * servlets or WebFlux.
 *
 * <p>IETF style ({@code draft-ietf-httpapi-ratelimit-headers}), one list item per limit:
 * <pre>
 * RateLimit-Policy: "OrderController.submit";q=5;w=60, "orders-hourly";q=100;w=3600
 * RateLimit: "OrderController.submit";r=0;t=42
 * </pre>
 * {@code q} and {@code w} depend on the algorithm ({@link QuotaPolicy}): the rate and the interval for sliding and
 * fixed windows, the burst and the time to refill it for a token bucket, the rate alone for a calendar quota.
 * {@code w} is left out for a window that is not a whole number of seconds. {@code RateLimit} lists
 * the limits whose remaining permits are known (not a limit after the one that refused the call that was not asked
 * then, as a rejection known in memory ends a call without asking the rest): a rejection ({@code r} the permits left, which a call refused
 * for its cost may leave, else 0; {@code t} the retry time, the same value as {@code Retry-After}), or an allowed
 * call when remaining permits are reported (the default): the Redis backend's decisions carry them, other
 * backends' are read after the decision. {@code r} and {@code t} are what the limiter reports: for a sliding window
 * the permits free now and the time until the next grant leaves the window, for a token bucket the whole tokens in
 * the bucket and the time until the next one arrives (none when it is full), for a fixed window the permits left in
 * the current window and the time until it ends. An in-flight limit, whose permits come back when calls end,
 * reports {@code r} (the permits not held) and never {@code t}, nor {@code w}, nor {@code Retry-After}.
 *
 * <p>Legacy style reports one limit, the one that rejected the call, else the one with the fewest
 * permits left, else the first: {@code X-RateLimit-Limit} (its {@code q}), {@code X-RateLimit-Remaining} and
 * {@code X-RateLimit-Reset} (seconds) when known.
 *
 * <p>Gateway style is the IETF style and, for the same one limit as the legacy style, the headers of Spring Cloud
 * Gateway's {@code RedisRateLimiter}: {@code X-RateLimit-Remaining} (the permits left, when known),
 * {@code X-RateLimit-Replenish-Rate} (the rate), {@code X-RateLimit-Burst-Capacity} (a token bucket's burst, else
 * the rate) and {@code X-RateLimit-Requested-Tokens} (the permits the call asked for).
 */
public final class RateLimitHeaders {

    /** Spring Cloud Gateway's header of the permits left (gateway style). */
    public static final String GATEWAY_REMAINING_HEADER = "X-RateLimit-Remaining";

    /** Spring Cloud Gateway's header of the rate (gateway style). */
    public static final String GATEWAY_REPLENISH_RATE_HEADER = "X-RateLimit-Replenish-Rate";

    /** Spring Cloud Gateway's header of the burst (gateway style). */
    public static final String GATEWAY_BURST_CAPACITY_HEADER = "X-RateLimit-Burst-Capacity";

    /** Spring Cloud Gateway's header of the permits the call asked for (gateway style). */
    public static final String GATEWAY_REQUESTED_TOKENS_HEADER = "X-RateLimit-Requested-Tokens";

    /** The most policy items kept; more display names than this empty the cache. */
    private static final int MAX_POLICY_ITEMS = 1024;

    private final RateLimitHeaderStyle style;
    private final boolean remaining;
    private final String policyHeader;
    private final String limitHeader;
    private final String legacyLimitHeader;
    private final String legacyRemainingHeader;
    private final String legacyResetHeader;
    /**
     * The {@code RateLimit-Policy} item of each limit by display name, rendered for the spec it was rendered for: a
     * decision under another spec (an override, a changed config) renders its own and replaces it.
     */
    private final Map<String, PolicyItem> policyItems = new ConcurrentHashMap<>();

    public RateLimitHeaders(HeadersProperties properties) {
        this.style = properties.getStyle();
        this.remaining = properties.isRemaining();
        this.policyHeader = properties.getPolicyHeader();
        this.limitHeader = properties.getLimitHeader();
        this.legacyLimitHeader = properties.getLegacyLimitHeader();
        this.legacyRemainingHeader = properties.getLegacyRemainingHeader();
        this.legacyResetHeader = properties.getLegacyResetHeader();
    }

    /** Whether allowed calls report their remaining permits. */
    public boolean readsRemaining() {
        return remaining;
    }

    /** Header name to value, in a stable order; empty when there is nothing to report. */
    public Map<String, String> render(Collection<ResponseLimits.Entry> entries) {
        Map<String, String> headers = new LinkedHashMap<>();
        render(entries, headers::put);
        return headers;
    }

    /**
     * Hands {@code header} each header's name and value, in the order of {@link #render(Collection)}, a name at most
     * once unless two configured names are the same (the later value is the one to keep then); nothing when there is
     * nothing to report.
     */
    public void render(Collection<ResponseLimits.Entry> entries, BiConsumer<String, String> header) {
        if (entries.isEmpty()) {
            return;
        }
        if (style == RateLimitHeaderStyle.LEGACY) {
            renderLegacy(entries, header);
        }
        else {
            renderIetf(entries, header);
        }
        if (style == RateLimitHeaderStyle.GATEWAY) {
            renderGateway(entries, header);
        }
    }

    private void renderIetf(Collection<ResponseLimits.Entry> entries, BiConsumer<String, String> headers) {
        // one limit, the common case, reports its policy item as rendered once, and its limit item made in one piece
        String policy = null;
        StringBuilder policies = null;
        String limit = null;
        StringBuilder limits = null;
        for (ResponseLimits.Entry entry : entries) {
            RateLimitOutcome outcome = entry.outcome();
            PolicyItem item = policyItem(outcome.displayName(), outcome.limit());
            if (policy == null) {
                policy = item.policy();
            }
            else {
                policies = policies == null ? new StringBuilder(policy.length() * 3).append(policy) : policies;
                policies.append(", ").append(item.policy());
            }
            Remaining left = remaining(entry);
            if (left != null) {
                String limitItem = left.resetSeconds() > 0
                        ? item.name() + ";r=" + left.permits() + ";t=" + left.resetSeconds()
                        : item.name() + ";r=" + left.permits();
                if (limit == null) {
                    limit = limitItem;
                }
                else {
                    limits = limits == null ? new StringBuilder(limit.length() * 3).append(limit) : limits;
                    limits.append(", ").append(limitItem);
                }
            }
        }
        headers.accept(policyHeader, policies == null ? policy : policies.toString());
        if (limit != null) {
            headers.accept(limitHeader, limits == null ? limit : limits.toString());
        }
    }

    /** The limit's name as an sf-string and its policy item, rendered once per display name and spec. */
    private PolicyItem policyItem(String displayName, LimitSpec limit) {
        PolicyItem item = policyItems.get(displayName);
        if (item != null && item.spec().equals(limit)) {
            return item;
        }
        String name = sfString(displayName);
        item = new PolicyItem(limit, name, name + QuotaPolicy.parameters(limit));
        if (policyItems.size() >= MAX_POLICY_ITEMS) {
            policyItems.clear(); // display names are the declared limits': only a flood of names could fill it
        }
        policyItems.put(displayName, item);
        return item;
    }

    private void renderLegacy(Collection<ResponseLimits.Entry> entries, BiConsumer<String, String> headers) {
        ResponseLimits.Entry tightest = tightest(entries);
        headers.accept(legacyLimitHeader, Long.toString(QuotaPolicy.quota(tightest.outcome().limit())));
        Remaining left = remaining(tightest);
        if (left != null) {
            headers.accept(legacyRemainingHeader, Long.toString(left.permits()));
            if (!tightest.outcome().limit().algorithm().held()) {
                headers.accept(legacyResetHeader, Long.toString(left.resetSeconds()));
            }
        }
    }

    private void renderGateway(Collection<ResponseLimits.Entry> entries, BiConsumer<String, String> headers) {
        ResponseLimits.Entry tightest = tightest(entries);
        RateLimitOutcome outcome = tightest.outcome();
        Remaining left = remaining(tightest);
        if (left != null) {
            headers.accept(GATEWAY_REMAINING_HEADER, Long.toString(left.permits()));
        }
        headers.accept(GATEWAY_REPLENISH_RATE_HEADER, Long.toString(outcome.limit().rate()));
        headers.accept(GATEWAY_BURST_CAPACITY_HEADER, Long.toString(outcome.limit().capacity()));
        headers.accept(GATEWAY_REQUESTED_TOKENS_HEADER, Long.toString(outcome.permits()));
    }

    /** The limit that rejected the call, else the one with the fewest permits left, else the first. */
    private ResponseLimits.Entry tightest(Collection<ResponseLimits.Entry> entries) {
        ResponseLimits.Entry first = null;
        ResponseLimits.Entry fewest = null;
        long fewestPermits = Long.MAX_VALUE;
        for (ResponseLimits.Entry entry : entries) {
            if (entry.outcome().rejected()) {
                return entry;
            }
            first = first == null ? entry : first;
            Remaining left = remaining(entry);
            if (left != null && left.permits() < fewestPermits) {
                fewest = entry;
                fewestPermits = left.permits();
            }
        }
        return fewest != null ? fewest : first;
    }

    /**
     * What is known for free (a rejection, or the state the decision came with) or was read; null otherwise,
     * and for allowed calls unless remaining permits are reported.
     */
    private Remaining remaining(ResponseLimits.Entry entry) {
        if (entry.policyOnly()) {
            return null;
        }
        RateLimitOutcome outcome = entry.outcome();
        if (outcome.rejected()) {
            // the permits left as the decision saw them: a call refused for its cost may leave some; t is the value
            // Retry-After carries, so it never differs from it
            LimitState state = stateOf(entry);
            return new Remaining(state == null ? 0 : state.available(), outcome.limit().algorithm().held() ? 0
                    : RateLimitExceededException.retryAfterSeconds(outcome.retryAfter()));
        }
        LimitState state = remaining ? stateOf(entry) : null;
        return state == null ? null
                : new Remaining(state.available(), RateLimitExceededException.toSecondsRoundedUp(state.nextPermitIn()));
    }

    /** Whether an allowed call's remaining permits still have to be read (its decision did not tell them). */
    public boolean needsStateRead(ResponseLimits.Entry entry) {
        return remaining && !entry.policyOnly() && entry.outcome().allowed() && !entry.outcome().shadow()
                && stateOf(entry) == null;
    }

    private static LimitState stateOf(ResponseLimits.Entry entry) {
        return entry.state() != null ? entry.state() : entry.outcome().state();
    }

    /** An RFC 8941 sf-string: printable ASCII, with quote and backslash escaped. */
    static String sfString(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            }
            else {
                out.append(c >= 0x20 && c < 0x7f ? c : '?');
            }
        }
        return out.append('"').toString();
    }

    private record Remaining(long permits, long resetSeconds) {
    }

    /** A limit's {@code RateLimit-Policy} item under {@code spec}, and its name as an sf-string. */
    private record PolicyItem(LimitSpec spec, String name, String policy) {
    }
}
