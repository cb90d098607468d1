package io.github.redissonratelimit.autoconfigure.health;

import java.time.Duration;
import java.util.function.Supplier;

import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.redissonratelimit.autoconfigure.RateLimitProperties;
import io.github.redissonratelimit.autoconfigure.ResilienceDecorator;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.local.LocalFallback;
import io.github.redissonratelimit.resilience.CircuitStates;

/**
 * The framework-neutral part of the {@code ratelimit} health indicator, imported by the Spring Boot 3
 * ({@link RateLimitHealthAutoConfiguration}) and Spring Boot 4 ({@link RateLimitHealthContributorAutoConfiguration})
 * auto-configurations: the latency window and {@link RateLimitHealth}, which computes the status and the details.
 */
@Configuration(proxyBeanMethods = false)
final class RateLimitHealthConfiguration {

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

    @Bean
    @ConditionalOnMissingBean
    RateLimitHealth rateLimitHealth(RateLimitProperties properties, ObjectProvider<RateLimitBackend> rateLimitBackend,
            ObjectProvider<RedissonClient> redissonClient, RecentDecisionLatency rateLimitRecentDecisionLatency,
            ObjectProvider<LocalFallback> rateLimitLocalFallback, ObjectProvider<ResilienceDecorator> resilience) {
        Supplier<CircuitStates> circuits = () -> {
            rateLimitBackend.getObject(); // composed, so that the resilience decorator made its circuits if in use
            ResilienceDecorator decorator = resilience.getIfUnique();
            return decorator != null ? decorator.circuits() : null;
        };
        RateLimitHealth health = new RateLimitHealth(circuits, redissonClient::getIfUnique,
                properties.getOnBackendError(), rateLimitRecentDecisionLatency, REDIS_WAIT);
        health.setLocalFallback(rateLimitLocalFallback::getIfUnique);
        return health;
    }
}
