package io.github.redissonratelimit.autoconfigure;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import io.github.redissonratelimit.lease.LeaseCounts;
import io.github.redissonratelimit.lease.LeasingRateLimitBackend;
import io.github.redissonratelimit.limiter.LimiterMemories;
import io.github.redissonratelimit.limiter.LimiterMemory;
import io.github.redissonratelimit.limiter.LocalRejectionCache;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.limiter.ReleaseSignals;
import io.github.redissonratelimit.limiter.WaitingRateLimitBackend;
import io.github.redissonratelimit.local.LocalFallback;
import io.github.redissonratelimit.local.LocalOutagePolicy;
import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.BackendOptions;
import io.github.redissonratelimit.redis.InMemoryGrantWriter;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.redis.ReleaseSubscriptions;

/**
 * The decision stack of {@link RateLimitAutoConfiguration}, all in this file: the Redisson backend, wrapped by every
 * {@link RateLimitBackendDecorator} bean in their order ({@link BackendComposition}). The layers it declares,
 * innermost first (each backs off for a bean of its name):
 * <ol>
 * <li>{@value RateLimitAutoConfiguration#RESILIENCE_DECORATOR} ({@link RateLimitBackendDecorator#RESILIENCE_ORDER}):
 * the decision deadline and one circuit breaker per Redis master;</li>
 * <li>{@value RateLimitAutoConfiguration#LOCAL_REJECTION_DECORATOR}
 * ({@link RateLimitBackendDecorator#LOCAL_REJECTION_ORDER}, unless {@code ratelimit.local-rejection.enabled=false}):
 * rejections known in this JVM answered from memory;</li>
 * <li>{@value RateLimitAutoConfiguration#LEASE_DECORATOR} ({@link RateLimitBackendDecorator#LEASE_ORDER}): limits
 * with a lease served from permits leased in batches;</li>
 * <li>{@value RateLimitAutoConfiguration#WAITING_DECORATOR} ({@link RateLimitBackendDecorator#WAITING_ORDER}): waits
 * for permits, for requests with a {@code waitTimeout};</li>
 * <li>{@value RateLimitAutoConfiguration#LOCAL_OUTAGE_DECORATOR}
 * ({@link RateLimitBackendDecorator#LOCAL_OUTAGE_ORDER}): the {@code LOCAL} outage policy, for requests under it.</li>
 * </ol>
 * The interceptor, the endpoint and the headers use the composed {@link RateLimitBackend} bean; each request says
 * which layers concern it (its outage policy, shadow mode, wait).
 */
@Configuration(proxyBeanMethods = false)
final class RateLimitBackendConfiguration {

    /**
     * Not a default candidate: injected only where asked for by name, so that the composed backend stays the one
     * {@link RateLimitBackend} that the interceptor, the endpoint and the headers get.
     */
    @Bean(name = RateLimitAutoConfiguration.REDISSON_BACKEND, defaultCandidate = false)
    @ConditionalOnMissingBean(name = RateLimitAutoConfiguration.REDISSON_BACKEND)
    RedissonRateLimitBackend redissonRateLimitBackend(RedissonClient redissonClient, RateLimitProperties properties,
            LimiterNaming rateLimitNaming) {
        return new RedissonRateLimitBackend(redissonClient, backendOptions(properties, rateLimitNaming));
    }

    private static BackendOptions backendOptions(RateLimitProperties properties, LimiterNaming naming) {
        PipeliningProperties pipelining = properties.getPipelining();
        return new BackendOptions(properties.getKnownLimiters(), properties.getKeyTtl(),
                properties.getOnConfigChange(), pipelining.isEnabled() ? pipelining.getMaxInFlight() : 0,
                pipelining.getMaxBatchSize(), properties.getClock(), naming);
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

    /**
     * Requests of limits without a lease pass through it; resets and overrides drop the leases of the limiters they
     * concern; the leases end (unspent permits back) at shutdown.
     */
    @Bean(RateLimitAutoConfiguration.LEASE_DECORATOR)
    @ConditionalOnMissingBean(name = RateLimitAutoConfiguration.LEASE_DECORATOR)
    @Order(RateLimitBackendDecorator.LEASE_ORDER)
    LeaseDecorator rateLimitLeaseDecorator(LimiterMemories rateLimitLimiterMemories) {
        return new LeaseDecorator(rateLimitLimiterMemories);
    }

    /** Makes the lease layer, registered with the instance's memories, and ends its leases when the context closes. */
    static final class LeaseDecorator implements RateLimitBackendDecorator, LeaseCounts, DisposableBean {

        private final List<LeasingRateLimitBackend> made = new CopyOnWriteArrayList<>();
        private final LimiterMemories memories;

        LeaseDecorator(LimiterMemories memories) {
            this.memories = memories;
        }

        @Override
        public RateLimitBackend decorate(RateLimitBackend backend) {
            LeasingRateLimitBackend leasing = memories.register(new LeasingRateLimitBackend(backend));
            made.add(leasing);
            return leasing;
        }

        @Override
        public void destroy() {
            made.forEach(LeasingRateLimitBackend::close);
        }

        @Override
        public long leaseHits() {
            return made.stream().mapToLong(LeasingRateLimitBackend::leaseHits).sum();
        }

        @Override
        public long redisCalls() {
            return made.stream().mapToLong(LeasingRateLimitBackend::redisCalls).sum();
        }

        @Override
        public int leasedLimiters() {
            return made.stream().mapToInt(LeasingRateLimitBackend::leasedLimiters).sum();
        }

        @Override
        public Holding holding(String limiterName) {
            return made.stream().map(leasing -> leasing.holding(limiterName)).filter(java.util.Objects::nonNull)
                    .findFirst().orElse(null);
        }
    }

    @Bean(RateLimitAutoConfiguration.WAITING_DECORATOR)
    @ConditionalOnMissingBean(name = RateLimitAutoConfiguration.WAITING_DECORATOR)
    @Order(RateLimitBackendDecorator.WAITING_ORDER)
    RateLimitBackendDecorator rateLimitWaitingDecorator(ObjectProvider<RedissonClient> redissonClient) {
        RedissonClient redisson = redissonClient.getIfAvailable();
        ReleaseSignals signals = redisson == null ? ReleaseSignals.NONE : new ReleaseSubscriptions(redisson);
        return backend -> new WaitingRateLimitBackend(backend, signals);
    }

    @Bean(RateLimitAutoConfiguration.LOCAL_OUTAGE_DECORATOR)
    @ConditionalOnMissingBean(name = RateLimitAutoConfiguration.LOCAL_OUTAGE_DECORATOR)
    @Order(RateLimitBackendDecorator.LOCAL_OUTAGE_ORDER)
    RateLimitBackendDecorator rateLimitLocalOutageDecorator(LocalFallback rateLimitLocalFallback,
            RedissonClient redissonClient, RateLimitProperties properties, LimiterNaming rateLimitNaming) {
        // the grants made in memory go to Redis when it answers again, on the keys and clock the backend decides with
        rateLimitLocalFallback.writeBackTo(new InMemoryGrantWriter(redissonClient, backendOptions(properties,
                rateLimitNaming)));
        return backend -> new LocalOutagePolicy(backend, rateLimitLocalFallback);
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
