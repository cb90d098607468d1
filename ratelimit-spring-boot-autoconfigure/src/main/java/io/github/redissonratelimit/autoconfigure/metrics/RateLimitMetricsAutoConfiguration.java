package io.github.redissonratelimit.autoconfigure.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.RateLimitProperties;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.local.LocalFallback;
import io.github.redissonratelimit.metrics.RateLimitMetrics;

/**
 * The rate limiter's meters in the application's {@link MeterRegistry}, when Micrometer is present and the rate
 * limiter is active: {@code ratelimit.requests}, {@code ratelimit.backend.latency} and {@code ratelimit.near.limit}
 * ({@link RateLimitMetrics}, told every decision, near the limit below {@code ratelimit.metrics.near-limit-share}) and {@code ratelimit.backend.failures}, {@code ratelimit.backend.skipped} and
 * {@code ratelimit.backend.circuit.open} ({@link RateLimitBackendMetrics}, told the Redis outages), and the
 * {@code ratelimit.local.*} meters of the local outage policy ({@link LocalFallbackMetrics}).
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class, afterName = {
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, RateLimitInterceptor.class })
public final class RateLimitMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RateLimitMetrics rateLimitMetrics(MeterRegistry meterRegistry, ObjectProvider<RateLimitProperties> properties) {
        return new RateLimitMetrics(meterRegistry,
                properties.getIfAvailable(RateLimitProperties::new).getMetrics().getNearLimitShare());
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(LocalFallback.class)
    LocalFallbackMetrics rateLimitLocalFallbackMetrics(LocalFallback rateLimitLocalFallback) {
        return new LocalFallbackMetrics(rateLimitLocalFallback);
    }

    /** Takes the registry lazily, as it may be created after the backend that reports to this listener. */
    @Bean
    @ConditionalOnMissingBean
    RateLimitBackendMetrics rateLimitBackendMetrics(ObjectProvider<MeterRegistry> meterRegistry) {
        return new RateLimitBackendMetrics(meterRegistry);
    }
}
