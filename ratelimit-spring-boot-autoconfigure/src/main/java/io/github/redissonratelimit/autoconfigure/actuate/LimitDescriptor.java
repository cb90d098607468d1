package io.github.redissonratelimit.autoconfigure.actuate;

import java.util.List;
import java.util.Map;

import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.operation.Tiers;

/**
 * One declared limit, as {@link RateLimitsEndpoint} lists it.
 *
 * @param algorithm {@code SLIDING_WINDOW}, {@code TOKEN_BUCKET} or {@code FIXED_WINDOW}
 * @param burst a token bucket's size, else null
 * @param calendar a calendar quota's period ({@code DAY}, {@code MONTH}, ...), else null
 * @param zone the zone of a calendar quota's windows, else null
 * @param permits the permits each call takes when there is no {@code cost} expression
 * @param cost the expression that gives each call's permits, or null when every call takes {@code permits}
 * @param shadow shadow mode: decisions are taken and recorded, but no call is ever refused, made to wait or denied
 * @param lease the lease period of a limit whose permits each instance leases in batches, else null
 * @param tiers the tiers a {@code tier} expression picks from per call, or null when the limit has none
 * @param source where the values come from: {@code annotation}, {@code policy}, {@code defaults}, joined by {@code +}
 */
public record LimitDescriptor(String name, String displayName, String method, String key, long rate, String interval,
        long intervalMillis, String mode, String algorithm, Long burst, String calendar, String zone, boolean shadow,
        long permits, String cost, String waitTimeout, String lease, String fallback, String condition, String skipIf,
        TiersDescriptor tiers, String source) {

    static LimitDescriptor of(RateLimitOperation operation) {
        LimitAlgorithm algorithm = operation.spec().algorithm();
        Map<String, Object> settings = algorithm.settings();
        return new LimitDescriptor(operation.name(), operation.displayName(), operation.method(),
                operation.key() != null ? operation.key().source()
                        : operation.callerKey() != null ? operation.callerKey().source() : null,
                operation.spec().rate(),
                operation.spec().interval().toString(), operation.spec().interval().toMillis(),
                operation.spec().mode().name(), algorithm.type().name(), (Long) settings.get("burst"),
                (String) settings.get("calendar"), (String) settings.get("zone"),
                operation.shadow(), operation.permits(), costOf(operation),
                operation.waitTimeout().isZero() ? null : operation.waitTimeout().toString(),
                operation.lease().isZero() ? null : operation.lease().toString(),
                operation.fallback() == null ? null : operation.fallback().toString(),
                operation.condition() == null ? null : operation.condition().source(),
                operation.skipIf() == null ? null : operation.skipIf().source(),
                operation.tiers() == null ? null : TiersDescriptor.of(operation.tiers()), operation.source());
    }

    private static String costOf(RateLimitOperation operation) {
        return operation.cost() == null ? null : operation.cost().source();
    }

    /**
     * The tiers of a limit.
     * @param expression the {@code tier} expression, evaluated for each call
     * @param selection how a call's tier is chosen
     * @param tiers the configured tiers, by name
     */
    public record TiersDescriptor(String expression, String selection, List<TierDescriptor> tiers) {

        /** What {@link Tiers#select} does. */
        static final String SELECTION = "the tier named by the expression's value; a value that names no tier "
                + "(or null) gets the limit's own values";

        static TiersDescriptor of(Tiers tiers) {
            return new TiersDescriptor(tiers.source(), SELECTION, tiers.operations().entrySet().stream()
                    .map(tier -> TierDescriptor.of(tier.getKey(), tier.getValue())).toList());
        }
    }

    /**
     * One tier of a limit: the values that limit the calls of its callers.
     * @param burst a token bucket's size in this tier, else null
     */
    public record TierDescriptor(String name, long rate, String interval, long intervalMillis, String mode,
            Long burst, boolean shadow, long permits, String cost, String source) {

        static TierDescriptor of(String name, RateLimitOperation operation) {
            return new TierDescriptor(name, operation.spec().rate(), operation.spec().interval().toString(),
                    operation.spec().interval().toMillis(), operation.spec().mode().name(),
                    (Long) operation.spec().algorithm().settings().get("burst"),
                    operation.shadow(), operation.permits(), costOf(operation), operation.source());
        }
    }
}
