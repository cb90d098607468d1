package io.github.redissonratelimit.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import io.github.redissonratelimit.operation.AlgorithmValues;
import io.github.redissonratelimit.operation.PolicyValues;
import io.github.redissonratelimit.operation.RateLimitPolicies;

/** {@link RateLimitPolicies} from {@code ratelimit.policies.*} and {@code ratelimit.defaults.*}. */
final class PropertiesRateLimitPolicies implements RateLimitPolicies {

    private final RateLimitProperties properties;

    PropertiesRateLimitPolicies(RateLimitProperties properties) {
        this.properties = properties;
    }

    @Override
    public PolicyValues policy(String name) {
        PolicyProperties policy = properties.getPolicies().get(name);
        if (policy == null) {
            return null;
        }
        Map<String, PolicyValues> tiers = new LinkedHashMap<>();
        policy.getTiers().forEach((tier, values) -> tiers.put(tier, new PolicyValues(values.getRate(),
                values.getInterval(), values.getMode(), values.getPermits(), null, null, null, Map.of(),
                new AlgorithmValues(null, values.getBurst(), null, null))));
        return new PolicyValues(policy.getRate(), policy.getInterval(), policy.getMode(), policy.getPermits(),
                policy.isEnabled(), policy.getOnBackendError(), policy.getShadow(), tiers,
                new AlgorithmValues(policy.getAlgorithm(), policy.getBurst(), policy.getCalendar(), policy.getZone()),
                policy.getLease());
    }

    @Override
    public PolicyValues defaults() {
        DefaultsProperties defaults = properties.getDefaults();
        return new PolicyValues(defaults.getRate(), defaults.getInterval(), defaults.getMode(), defaults.getPermits(),
                null, null, null, Map.of(), new AlgorithmValues(defaults.getAlgorithm(), null, null, defaults.getZone()));
    }

    @Override
    public Set<String> names() {
        return Set.copyOf(properties.getPolicies().keySet());
    }

    @Override
    public boolean policiesRequired() {
        return properties.isRequirePolicies();
    }

    @Override
    public String describePolicyValue(String name, String attribute) {
        return "ratelimit.policies." + name + "." + attribute;
    }

    @Override
    public String describeDefault(String attribute) {
        return "ratelimit.defaults." + attribute;
    }
}
