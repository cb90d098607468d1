package io.github.redissonratelimit.operation;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Function;

import io.github.redissonratelimit.algorithm.Setting;

/** Picks each value of one limit from policy, annotation, defaults or built-in default, remembering where from. */
final class ValueResolver {

    private final String name;
    private final PolicyValues policy;
    private final RateLimitPolicies policies;
    private final Set<String> sources = new LinkedHashSet<>();

    ValueResolver(String name, PolicyValues policy, RateLimitPolicies policies) {
        this.name = name;
        this.policy = policy;
        this.policies = policies;
    }

    /** @return the value, or {@code null} when nothing sets it and there is no built-in default */
    <T> Setting<T> resolve(String attribute, Function<PolicyValues, T> property, T declared, T builtIn) {
        Setting<T> explicit = explicit(attribute, property, declared);
        if (explicit != null) {
            return explicit;
        }
        T fromDefaults = property.apply(policies.defaults());
        if (fromDefaults != null) {
            sources.add("defaults");
            return new Setting<>(fromDefaults, policies.describeDefault(attribute));
        }
        return builtIn == null ? null : new Setting<>(builtIn, attribute);
    }

    /**
     * The value the policy or the declaration sets, not the defaults: for a value another one implies unless set
     * explicitly. {@code null} when neither sets it.
     */
    <T> Setting<T> explicit(String attribute, Function<PolicyValues, T> property, T declared) {
        T fromPolicy = policy == null ? null : property.apply(policy);
        if (fromPolicy != null) {
            sources.add("policy");
            return new Setting<>(fromPolicy, policies.describePolicyValue(name, attribute));
        }
        if (declared != null) {
            sources.add("annotation");
            return new Setting<>(declared, attribute);
        }
        return null;
    }

    /** How errors name {@code attribute} of the policy, e.g. {@code ratelimit.policies.order-submit.interval}. */
    String policyValue(String attribute) {
        return policies.describePolicyValue(name, attribute);
    }

    /** Where the values came from: {@code annotation}, {@code policy}, {@code defaults}, joined by {@code +}. */
    String source() {
        return sources.isEmpty() ? "annotation" : String.join("+", sources);
    }
}
