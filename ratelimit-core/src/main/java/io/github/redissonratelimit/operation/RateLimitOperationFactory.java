package io.github.redissonratelimit.operation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import io.github.redissonratelimit.algorithm.Algorithms;
import io.github.redissonratelimit.algorithm.Setting;
import io.github.redissonratelimit.InvalidRateLimitException;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.key.ValueExpression;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.operation.LimitedMethod.DefaultName;

/**
 * Turns the declarations of one method into its operations: merges each with its policy and the defaults,
 * validates the result and parses its expressions, so that a declaration that cannot work fails at startup.
 *
 * <p>Each value comes from, in order: the limit's policy ({@link RateLimitPolicies#policy}, found by the
 * declared {@code name}), the declaration, the policies' defaults, the built-in default. A policy with
 * {@code enabled = false} removes the limit.
 */
final class RateLimitOperationFactory {

    private final RateLimitPolicies policies;
    private final ExpressionAttributeParser expressions;

    RateLimitOperationFactory(KeyExpressionParser keyParser, RateLimitPolicies policies) {
        this.policies = policies;
        this.expressions = new ExpressionAttributeParser(keyParser);
    }

    /**
     * @param unnamed the name of a limit declared without one
     * @return the operations in declaration order, without those their policy disables
     * @throws InvalidRateLimitException for the first declaration that cannot work
     */
    List<RateLimitOperation> create(List<RateLimitDeclaration> declarations, LimitedMethod method,
            DefaultName unnamed) {
        List<RateLimitOperation> operations = new ArrayList<>(declarations.size());
        for (RateLimitDeclaration declaration : declarations) {
            PolicyValues policy = policy(declaration.name(), method);
            if (policy == null || !policy.isDisabled()) {
                // the limit's own values first, so that their errors name the policy rather than a tier
                RateLimitOperation operation = create(declaration, policy, declaration.name(), method, unnamed, null);
                Tiers tiers = tiers(declaration, policy, method, unnamed);
                operations.add(tiers == null ? operation
                        : create(declaration, policy, declaration.name(), method, unnamed, tiers));
            }
        }
        SharedLimiterCheck.requireDistinct(operations, method.description());
        return List.copyOf(operations);
    }

    private PolicyValues policy(String declaredName, LimitedMethod method) {
        PolicyValues policy = declaredName == null ? null : policies.policy(declaredName);
        if (policy == null && declaredName != null && policies.policiesRequired()) {
            throw new InvalidRateLimitException(method.description(), "name", "\"" + declaredName + "\" has no "
                    + "policy configured, and policies are required", "configure "
                            + policies.describePolicyValue(declaredName, "rate") + " (and interval), or fix the name; "
                            + "configured policies: " + policies.names(), null);
        }
        return policy;
    }

    /**
     * @param policyPath how errors name the policy the values come from: the declared name, or
     *        {@code <name>.tiers.<tier>} for a tier
     */
    private RateLimitOperation create(RateLimitDeclaration declaration, PolicyValues policy, String policyPath,
            LimitedMethod method, DefaultName unnamed, Tiers tiers) {
        String description = method.description();
        String declaredName = declaration.name();
        ValueResolver values = new ValueResolver(policyPath, policy, policies);
        Setting<Long> rate = rate(declaration, values, description);
        Algorithms.Resolved window = AlgorithmResolver.resolve(declaration, policy, values, rate, description);
        Setting<RateLimitMode> mode = mode(declaration, values, description);
        LimitSpec spec = new LimitSpec(rate.value(), window.interval().value(), mode.value(), window.algorithm());
        ValueExpression cost = cost(declaration, policy, policyPath, method);
        Setting<Long> permits = cost != null ? null
                : permits(declaration, values, spec.capacity(), window.capacity(), description);
        requireOneAlgorithm(tiers, spec, description);
        if (spec.algorithm().held() && declaration.chargeWhen() != null && !declaration.chargeWhen().isBlank()) {
            throw new InvalidRateLimitException(description, "chargeWhen", "is set on an in-flight limit, whose "
                    + "permits always go back when the call ends", "remove chargeWhen, or declare a rate limit", null);
        }
        Duration lease = lease(declaration, policy, policyPath, spec, description);
        return RateLimitOperation.builder(description, declaredName != null ? declaredName : unnamed.name(), spec)
                .lease(lease)
                .key(expressions.key(declaration.key(), method))
                .permits(permits == null ? 1 : permits.value())
                .cost(cost)
                .shadow(policy != null && policy.shadow() != null ? policy.shadow() : declaration.shadow())
                .tiers(tiers)
                .message(declaration.message())
                .policyName(declaredName)
                .source(values.source())
                .backendErrorPolicy(onBackendError(policy, declaration))
                .displayName(declaredName != null ? declaredName : unnamed.displayName())
                .waitTimeout(declaration.waitTimeout() == null ? Duration.ZERO
                        : DurationText.parseAttribute(declaration.waitTimeout(), "waitTimeout", description,
                                "\"500ms\", \"2s\" or \"PT1S\", or leave it empty to reject at once"))
                .condition(expressions.condition(declaration.condition(), "condition", method))
                .skipIf(expressions.condition(declaration.skipIf(), "skipIf", method))
                .chargeWhen(expressions.chargeWhen(declaration.chargeWhen(), method))
                .fallback(declaration.fallback() == null ? null
                        : FallbackMethod.resolve(method.userClass(), method.method(), declaration.fallback(), description))
                .build();
    }

    /**
     * The lease period: the policy's, else the annotation's, else none; under {@link LimitSpec#leaseRefusal}'s rule.
     */
    private Duration lease(RateLimitDeclaration declaration, PolicyValues policy, String policyPath, LimitSpec spec,
            String description) {
        boolean fromPolicy = policy != null && policy.lease() != null;
        String attribute = fromPolicy ? policies.describePolicyValue(policyPath, "lease") : "lease";
        Duration lease = fromPolicy ? policy.lease() : declaration.lease() == null ? Duration.ZERO
                : DurationText.parseAttribute(declaration.lease(), "lease", description,
                        "\"100ms\" or \"PT0.1S\", or leave it empty for no lease");
        if (lease.isZero()) {
            return lease;
        }
        LimitSpec.LeaseRefusal refusal = spec.leaseRefusal(lease, attribute);
        if (refusal != null) {
            throw new InvalidRateLimitException(description, attribute, refusal.problem(), refusal.fix(), null);
        }
        return lease;
    }

    private Setting<Long> rate(RateLimitDeclaration declaration, ValueResolver values, String description) {
        if (declaration.rate() < 0) {
            throw new InvalidRateLimitException(description, "rate", "must be greater than 0 but was "
                    + declaration.rate(), "declare how many calls a window allows, e.g. "
                            + "@RateLimit(rate = 10, interval = 1)", null);
        }
        Setting<Long> rate = values.resolve("rate", PolicyValues::rate, positive(declaration.rate()), null);
        if (rate == null) {
            throw new InvalidRateLimitException(description, "rate", "is not set",
                    "declare how many calls a window allows, e.g. @RateLimit(rate = 10, interval = 1)"
                            + (declaration.name() == null ? ""
                                    : ", or set " + policies.describePolicyValue(declaration.name(), "rate")),
                    null);
        }
        if (rate.value() <= 0) {
            throw new InvalidRateLimitException(description, rate.origin(), "must be greater than 0 but was "
                    + rate.value(), "configure a positive rate", null);
        }
        return rate;
    }

    /** {@code DEFAULT} leaves the mode to the next source; the defaults, being the last, must name one. */
    private Setting<RateLimitMode> mode(RateLimitDeclaration declaration, ValueResolver values, String description) {
        if (policies.defaults().mode() == RateLimitMode.DEFAULT) {
            throw new InvalidRateLimitException(description, policies.describeDefault("mode"), "is DEFAULT, which "
                    + "would leave the mode of every limit that sets none undecided",
                    "set it to OVERALL or PER_CLIENT, or leave it unset for OVERALL", null);
        }
        return values.resolve("mode", policy -> declared(policy.mode()), declared(declaration.mode()),
                RateLimitMode.OVERALL);
    }

    private static RateLimitMode declared(RateLimitMode mode) {
        return mode == RateLimitMode.DEFAULT ? null : mode;
    }

    /**
     * @param capacity the most permits a call can take (the rate, or a token bucket's burst)
     * @param capacityOrigin how errors name where the capacity comes from
     */
    private static Setting<Long> permits(RateLimitDeclaration declaration, ValueResolver values, long capacity,
            String capacityOrigin, String description) {
        if (declaration.permits() < 0) {
            throw new InvalidRateLimitException(description, "permits", "must be greater than 0 but was "
                    + declaration.permits(), "remove permits (a call takes 1) or set it to a positive number", null);
        }
        Setting<Long> permits = values.resolve("permits", PolicyValues::permits, positive(declaration.permits()), 1L);
        if (permits.value() <= 0) {
            throw new InvalidRateLimitException(description, permits.origin(), "must be greater than 0 but was "
                    + permits.value(), "remove it (a call takes 1) or set it to a positive number", null);
        }
        if (permits.value() > capacity) {
            throw new InvalidRateLimitException(description, permits.origin(), "(" + permits.value()
                    + ") exceeds " + capacityOrigin + " (" + capacity + "), so no call could ever be allowed",
                    "lower permits or raise " + capacityOrigin, null);
        }
        return permits;
    }

    /**
     * The {@code cost} expression, which replaces permits: refused together with a declared or policy
     * {@code permits} (the defaults' permits only fill in for limits without a cost).
     */
    private ValueExpression cost(RateLimitDeclaration declaration, PolicyValues policy, String policyPath,
            LimitedMethod method) {
        String cost = declaration.cost();
        if (cost == null) {
            return null;
        }
        if (declaration.permits() != 0) {
            throw new InvalidRateLimitException(method.description(), "cost", "\"" + cost + "\" is set together "
                    + "with permits = " + declaration.permits(), "use either permits (the same number of permits "
                            + "for every call) or cost (computed per call), not both: remove permits", null);
        }
        if (policy != null && policy.permits() != null) {
            throw new InvalidRateLimitException(method.description(),
                    policies.describePolicyValue(policyPath, "permits"), "(" + policy.permits() + ") is set, "
                            + "but the annotation computes the permits of each call with cost = \"" + cost + "\"",
                    "remove permits from the policy, or cost from the annotation", null);
        }
        return expressions.value(cost, "cost", "#items.size()", method);
    }

    /**
     * The operations of the tiers the policy configures, each validated like a limit of its own, picked per call
     * by the {@code tier} expression; {@code null} without one.
     */
    private Tiers tiers(RateLimitDeclaration declaration, PolicyValues policy, LimitedMethod method,
            DefaultName unnamed) {
        if (declaration.tier() == null) {
            return null;
        }
        String name = declaration.name();
        if (name == null || policy == null || policy.tiers().isEmpty()) {
            throw new InvalidRateLimitException(method.description(), "tier", "\"" + declaration.tier() + "\" is set, "
                    + "but " + (name == null ? "the limit has no name, so no policy can configure its tiers"
                            : "policy '" + name + "' configures no tiers"), "configure "
                                    + policies.describePolicyValue(name == null ? "<name>" : name, "tiers.<tier>.rate")
                                    + (name == null ? " and set name = \"<name>\"" : "") + ", or remove tier", null);
        }
        Map<String, RateLimitOperation> byTier = new LinkedHashMap<>();
        for (String tier : new TreeSet<>(policy.tiers().keySet())) {
            byTier.put(tier, create(declaration, policy.forTier(tier), name + ".tiers." + tier, method, unnamed, null));
        }
        return new Tiers(expressions.value(declaration.tier(), "tier", "@plans.planOf(#apiKey)", method), byTier);
    }

    /**
     * The tiers share the key's limiter, so they must count it the same way: a tier may change the rate, interval
     * and burst, not the algorithm (e.g. a tier's interval replacing a declared calendar period).
     */
    private static void requireOneAlgorithm(Tiers tiers, LimitSpec spec, String description) {
        if (tiers == null) {
            return;
        }
        tiers.operations().forEach((tier, operation) -> {
            LimitAlgorithm algorithm = operation.spec().algorithm();
            if (!algorithm.sharesLimiterWith(spec.algorithm())) {
                throw new InvalidRateLimitException(description, "tier", "'" + tier + "' counts with a "
                        + algorithm + ", but the limit with a " + spec.algorithm() + ", and the tiers share the "
                        + "key's limiter", "give the tier the limit's algorithm (a tier may change rate, interval "
                                + "and burst, not the algorithm or calendar period)", null);
            }
        });
    }

    /** The policy's value (when it sets one other than DEFAULT) wins over the declaration's. */
    private static BackendErrorPolicy onBackendError(PolicyValues policy, RateLimitDeclaration declaration) {
        BackendErrorPolicy fromPolicy = policy == null ? null : policy.onBackendError();
        return fromPolicy != null && fromPolicy != BackendErrorPolicy.DEFAULT ? fromPolicy
                : declaration.onBackendError();
    }

    private static Long positive(long value) {
        return value > 0 ? value : null;
    }
}
