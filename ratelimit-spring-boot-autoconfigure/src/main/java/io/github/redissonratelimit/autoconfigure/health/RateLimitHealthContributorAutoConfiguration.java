package io.github.redissonratelimit.autoconfigure.health;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Import;

import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;

/**
 * The {@code ratelimit} health indicator on Spring Boot 4 ({@link RateLimitHealthContributor}), when Boot 4's health
 * API ({@code org.springframework.boot.health.contributor}, module {@code spring-boot-health}, which
 * {@code spring-boot-starter-actuator} brings) is present and Boot 3's is not, the rate limiter is active and
 * {@code management.health.ratelimit.enabled} (or, when that is not set, {@code management.health.defaults.enabled})
 * is not {@code false}. Same bean name, same details as {@link RateLimitHealthAutoConfiguration} on Boot 3.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class,
        beforeName = "org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration")
@ConditionalOnClass(name = RateLimitHealthContributorAutoConfiguration.BOOT4_HEALTH_INDICATOR)
@ConditionalOnMissingClass(RateLimitHealthAutoConfiguration.BOOT3_HEALTH_INDICATOR)
@ConditionalOnBean(RateLimitInterceptor.class)
@Conditional(OnEnabledHealthIndicator.class)
@Import(RateLimitHealthConfiguration.class)
public final class RateLimitHealthContributorAutoConfiguration {

    static final String BOOT4_HEALTH_INDICATOR = "org.springframework.boot.health.contributor.HealthIndicator";

    @Bean(RateLimitHealthAutoConfiguration.HEALTH_INDICATOR)
    @ConditionalOnMissingBean(name = RateLimitHealthAutoConfiguration.HEALTH_INDICATOR)
    RateLimitHealthContributor ratelimitHealthIndicator(RateLimitHealth rateLimitHealth) {
        return new RateLimitHealthContributor(rateLimitHealth);
    }
}
