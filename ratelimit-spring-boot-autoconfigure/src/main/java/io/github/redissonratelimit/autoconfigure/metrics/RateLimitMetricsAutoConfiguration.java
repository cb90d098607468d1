package io.github.redissonratelimit.autoconfigure.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.metrics.RateLimitMetrics;

/**
 * Records {@code ratelimit.requests} and {@code ratelimit.backend.latency} in the application's
 * {@link MeterRegistry} when Micrometer is present.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class, afterName = {
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, RateLimitInterceptor.class })
public final class RateLimitMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RateLimitMetrics rateLimitMetrics(MeterRegistry meterRegistry) {
        return new RateLimitMetrics(meterRegistry);
    }
}
