package io.github.redissonratelimit.autoconfigure;

import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import io.github.redissonratelimit.limiter.LimiterMemories;
import io.github.redissonratelimit.limiter.LimiterMemory;
import io.github.redissonratelimit.limiter.LocalRejectionCache;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.redis.BackendOptions;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;

/**
 * The backend of {@link RateLimitAutoConfiguration}: the Redisson backend, wrapped by every
 * {@link RateLimitBackendDecorator} bean in their order.
 */
@Configuration(proxyBeanMethods = false)
final class RateLimitBackendConfiguration {

    /**
     * Not a default candidate: injected only where asked for by name, so that the composed backend stays the one
     * {@link RateLimitBackend} that the interceptor, the endpoint and the headers get.
     */
    @Bean(name = RateLimitAutoConfiguration.REDISSON_BACKEND, defaultCandidate = false)
    @ConditionalOnMissingBean(name = RateLimitAutoConfiguration.REDISSON_BACKEND)
    RedissonRateLimitBackend redissonRateLimitBackend(RedissonClient redissonClient, RateLimitProperties properties) {
        PipeliningProperties pipelining = properties.getPipelining();
        BackendOptions options = new BackendOptions(properties.getKnownLimiters(), properties.getKeyTtl(),
                properties.getOnConfigChange(), pipelining.isEnabled() ? pipelining.getMaxInFlight() : 0,
                pipelining.getMaxBatchSize(), properties.getClock());
        return new RedissonRateLimitBackend(redissonClient, options);
    }

    @Bean(RateLimitAutoConfiguration.RESILIENCE_DECORATOR)
    @ConditionalOnMissingBean(name = RateLimitAutoConfiguration.RESILIENCE_DECORATOR)
    @Order(RateLimitBackendDecorator.RESILIENCE_ORDER)
    ResilienceDecorator rateLimitResilienceDecorator(RateLimitProperties properties,
            ObjectProvider<RateLimitListener> rateLimitListeners,
            @Qualifier(RateLimitAutoConfiguration.REDISSON_BACKEND) ObjectProvider<RateLimitBackend> redisson) {
        CircuitBreakerProperties circuitBreaker = properties.getCircuitBreaker();
        return new ResilienceDecorator(properties.getBackendTimeout(),
                circuitBreaker.livenessTimeout(properties.getBackendTimeout()), circuitBreaker.getFailureThreshold(),
                circuitBreaker.getOpenDuration(), () -> rateLimitListeners.orderedStream().toList(),
                redisson::getIfAvailable);
    }

    @Bean(RateLimitAutoConfiguration.LOCAL_REJECTION_DECORATOR)
    @ConditionalOnMissingBean(name = RateLimitAutoConfiguration.LOCAL_REJECTION_DECORATOR)
    @ConditionalOnProperty(prefix = "ratelimit.local-rejection", name = "enabled", havingValue = "true",
            matchIfMissing = true)
    @Order(RateLimitBackendDecorator.LOCAL_REJECTION_ORDER)
    RateLimitBackendDecorator rateLimitLocalRejectionDecorator(RateLimitProperties properties,
            LimiterMemories rateLimitLimiterMemories) {
        long maxEntries = properties.getLocalRejection().getMaxEntries();
        return backend -> rateLimitLimiterMemories.register(new LocalRejectionCache(backend, maxEntries));
    }


    @Bean
    @ConditionalOnMissingBean
    RateLimitBackend rateLimitBackend(@Qualifier(RateLimitAutoConfiguration.REDISSON_BACKEND) RateLimitBackend redisson,
            ObjectProvider<RateLimitBackendDecorator> decorators, LimiterMemories rateLimitLimiterMemories,
            BackendComposition rateLimitBackendComposition) {
        if (redisson instanceof LimiterMemory checkedConfigs) {
            rateLimitLimiterMemories.register(checkedConfigs);
        }
        return rateLimitBackendComposition.compose(redisson, decorators.orderedStream().toList());
    }

    @Bean
    @ConditionalOnMissingBean
    BackendComposition rateLimitBackendComposition() {
        return new BackendComposition();
    }
}
