package io.github.redissonratelimit.autoconfigure.health;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Import;

import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;

/**
 * The {@code ratelimit} health indicator on Spring Boot 3 ({@link RateLimitHealthIndicator}), when Actuator's
 * health API ({@code org.springframework.boot.actuate.health}) is present, the rate limiter is active and
 * {@code management.health.ratelimit.enabled} (or, when that is not set, {@code management.health.defaults.enabled})
 * is not {@code false}. On Spring Boot 4, whose health API moved to {@code spring-boot-health}, it backs off and
 * {@link RateLimitHealthContributorAutoConfiguration} applies.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class,
        beforeName = "org.springframework.boot.actuate.autoconfigure.health.HealthEndpointAutoConfiguration")
@ConditionalOnClass(name = RateLimitHealthAutoConfiguration.BOOT3_HEALTH_INDICATOR)
@ConditionalOnBean(RateLimitInterceptor.class)
@Conditional(OnEnabledHealthIndicator.class)
@Import(RateLimitHealthConfiguration.class)
public final class RateLimitHealthAutoConfiguration {

    static final String BOOT3_HEALTH_INDICATOR = "org.springframework.boot.actuate.health.HealthIndicator";

    /** The bean name, from which Actuator takes the indicator's name, {@code ratelimit} (on Boot 3 and Boot 4). */
    public static final String HEALTH_INDICATOR = "ratelimitHealthIndicator";

    @Bean(HEALTH_INDICATOR)
    @ConditionalOnMissingBean(name = HEALTH_INDICATOR)
    RateLimitHealthIndicator ratelimitHealthIndicator(RateLimitHealth rateLimitHealth) {
        return new RateLimitHealthIndicator(rateLimitHealth);
    }
}
