package io.github.redissonratelimit.operation;

import java.util.Set;

/**
 * Limit values that live outside the code: per limit name ({@code @RateLimit(name = "order-submit")})
 * and defaults. Values found here override the annotation's; defaults fill what neither sets.
 */
public interface RateLimitPolicies {

    /** No policies: every value comes from the annotation. */
    RateLimitPolicies NONE = new RateLimitPolicies() {
    };

    /** The policy configured for {@code name}, or {@code null}. */
    default PolicyValues policy(String name) {
        return null;
    }

    /** Values for what neither the policy nor the annotation sets. */
    default PolicyValues defaults() {
        return PolicyValues.NONE;
    }

    /** The names that have a policy. */
    default Set<String> names() {
        return Set.of();
    }

    /** Whether every {@code @RateLimit} with a name must have a policy. */
    default boolean policiesRequired() {
        return false;
    }

    /** How errors refer to a value of a policy, e.g. {@code ratelimit.policies.order-submit.rate}. */
    default String describePolicyValue(String name, String attribute) {
        return "policy '" + name + "' " + attribute;
    }

    /** How errors refer to a default value, e.g. {@code ratelimit.defaults.rate}. */
    default String describeDefault(String attribute) {
        return "default " + attribute;
    }
}
