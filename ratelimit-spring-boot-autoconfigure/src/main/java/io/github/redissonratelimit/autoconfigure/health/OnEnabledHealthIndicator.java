package io.github.redissonratelimit.autoconfigure.health;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Actuator's convention for an indicator, without depending on the Actuator auto-configuration (whose
 * {@code @ConditionalOnEnabledHealthIndicator} moved in Spring Boot 4): {@code management.health.ratelimit.enabled}
 * when set, else {@code management.health.defaults.enabled}, else enabled. Shared by the Boot 3 and Boot 4
 * auto-configurations.
 */
final class OnEnabledHealthIndicator extends SpringBootCondition {

    private static final String ENABLED = "management.health.ratelimit.enabled";
    private static final String DEFAULTS = "management.health.defaults.enabled";

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        Environment environment = context.getEnvironment();
        String property = environment.containsProperty(ENABLED) ? ENABLED : DEFAULTS;
        boolean enabled = environment.getProperty(property, Boolean.class, true);
        return enabled ? ConditionOutcome.match(property + " is not false")
                : ConditionOutcome.noMatch(property + " is false");
    }
}
