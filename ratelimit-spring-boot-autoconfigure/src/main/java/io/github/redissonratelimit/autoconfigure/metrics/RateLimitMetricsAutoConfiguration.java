package io.github.redissonratelimit.autoconfigure.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.RateLimitProperties;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.lease.LeaseCounts;
import io.github.redissonratelimit.local.LocalFallback;
import io.github.redissonratelimit.metrics.RateLimitMetrics;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;

/**
 * The rate limiter's meters in the application's {@link MeterRegistry}, when Micrometer is present and the rate
 * limiter is active: {@code ratelimit.requests}, {@code ratelimit.backend.latency} and {@code ratelimit.near.limit}
 * ({@link RateLimitMetrics}, told every decision, near the limit below {@code ratelimit.metrics.near-limit-share}) and {@code ratelimit.backend.failures}, {@code ratelimit.backend.skipped} and
 * {@code ratelimit.backend.circuit.open} ({@link RateLimitBackendMetrics}, told the Redis outages), and the
 * {@code ratelimit.local.*} meters of the local outage policy ({@link LocalFallbackMetrics}), and
 * {@code ratelimit.leases.held}, the leases of calls in flight this instance renews, and
 * {@code ratelimit.leased.decisions}, the decisions of limits with a permit lease by where they were made.
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

    /** {@code ratelimit.leases.held}: the leases of calls in flight this instance holds and renews now. */
    @Bean
    MeterBinder rateLimitLeaseMetrics(
            @Qualifier(RateLimitAutoConfiguration.REDISSON_BACKEND) ObjectProvider<RedissonRateLimitBackend> redisson) {
        return registry -> redisson.ifAvailable(backend -> Gauge.builder("ratelimit.leases.held", backend,
                RedissonRateLimitBackend::heldLeases)
                .description("Leases of calls in flight (in-flight limits) this instance holds and renews")
                .register(registry));
    }

    /**
     * {@code ratelimit.leased.decisions}: the decisions of limits with a lease, {@code source=lease} from a lease in
     * memory, {@code source=redis} by a call to Redis; {@code ratelimit.leased.limiters}: the limiters this instance
     * keeps a lease for.
     */
    @Bean
    MeterBinder rateLimitLeasedDecisionMetrics(
            @Qualifier(RateLimitAutoConfiguration.LEASE_DECORATOR) ObjectProvider<LeaseCounts> leases) {
        return registry -> leases.ifAvailable(counts -> {
            FunctionCounter.builder("ratelimit.leased.decisions", counts, LeaseCounts::leaseHits).tag("source", "lease")
                    .description("Decisions of limits with a lease, from the lease in memory or by a call to Redis")
                    .register(registry);
            FunctionCounter.builder("ratelimit.leased.decisions", counts, LeaseCounts::redisCalls).tag("source", "redis")
                    .description("Decisions of limits with a lease, from the lease in memory or by a call to Redis")
                    .register(registry);
            Gauge.builder("ratelimit.leased.limiters", counts, LeaseCounts::leasedLimiters)
                    .description("Limiters this instance keeps a lease for").register(registry);
        });
    }

    /** Takes the registry lazily, as it may be created after the backend that reports to this listener. */
    @Bean
    @ConditionalOnMissingBean
    RateLimitBackendMetrics rateLimitBackendMetrics(ObjectProvider<MeterRegistry> meterRegistry) {
        return new RateLimitBackendMetrics(meterRegistry);
    }
}
