package io.github.redissonratelimit.autoconfigure.health;

import java.time.Duration;

import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.RateLimitProperties;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.limiter.RateLimitBackend;

/**
 * The {@code ratelimit} health indicator ({@link RateLimitHealthIndicator}), when Spring Boot 3's Actuator health
 * support is present, the rate limiter is active and {@code management.health.ratelimit.enabled} (or, when that
 * is not set, {@code management.health.defaults.enabled}) is not {@code false}. On Spring Boot 4, whose health
 * support lives elsewhere, it backs off.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class,
        beforeName = "org.springframework.boot.actuate.autoconfigure.health.HealthEndpointAutoConfiguration")
@ConditionalOnClass(name = RateLimitHealthAutoConfiguration.BOOT3_HEALTH_INDICATOR)
@ConditionalOnBean(RateLimitInterceptor.class)
@Conditional(RateLimitHealthAutoConfiguration.OnEnabledHealthIndicator.class)
public final class RateLimitHealthAutoConfiguration {

    static final String BOOT3_HEALTH_INDICATOR = "org.springframework.boot.actuate.health.HealthIndicator";

    /** The bean name, from which Actuator takes the indicator's name, {@code ratelimit}. */
    public static final String HEALTH_INDICATOR = "ratelimitHealthIndicator";

    /** How many recent decisions the latency window keeps, and for how long. */
    static final int LATENCY_WINDOW = 1024;

    static final Duration LATENCY_MAX_AGE = Duration.ofMinutes(5);

    /** How long a health check waits for Redis's eviction policy. */
    static final Duration REDIS_WAIT = Duration.ofSeconds(1);

    @Bean
    @ConditionalOnMissingBean
    RecentDecisionLatency rateLimitRecentDecisionLatency() {
        return new RecentDecisionLatency(LATENCY_WINDOW, LATENCY_MAX_AGE);
    }

    @Bean(HEALTH_INDICATOR)
    @ConditionalOnMissingBean(name = HEALTH_INDICATOR)
    RateLimitHealthIndicator ratelimitHealthIndicator(RateLimitProperties properties,
            ObjectProvider<RateLimitBackend> rateLimitBackend, ObjectProvider<RedissonClient> redissonClient,
            RecentDecisionLatency rateLimitRecentDecisionLatency) {
        return new RateLimitHealthIndicator(new RateLimitHealth(rateLimitBackend::getObject,
                redissonClient::getIfUnique, properties.getOnBackendError(), rateLimitRecentDecisionLatency,
                REDIS_WAIT));
    }

    /**
     * Actuator's convention for an indicator, without depending on the Actuator auto-configuration (whose
     * {@code @ConditionalOnEnabledHealthIndicator} moved in Spring Boot 4): {@code management.health.ratelimit.enabled}
     * when set, else {@code management.health.defaults.enabled}, else enabled.
     */
    static final class OnEnabledHealthIndicator extends SpringBootCondition {

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
}
