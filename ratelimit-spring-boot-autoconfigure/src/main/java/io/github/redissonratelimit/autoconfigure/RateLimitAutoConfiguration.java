package io.github.redissonratelimit.autoconfigure;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.function.Function;

import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.function.SingletonSupplier;

import io.github.redissonratelimit.admin.RateLimiters;
import io.github.redissonratelimit.autoconfigure.names.UnknownPropertyCheck;
import io.github.redissonratelimit.interceptor.RateLimitAdvisor;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.limiter.LimiterMemories;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.local.InstanceCount;
import io.github.redissonratelimit.local.LocalFallback;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.operation.AnnotationRateLimitOperationSource;
import io.github.redissonratelimit.operation.LimitOverrides;
import io.github.redissonratelimit.operation.RateLimitDeclarationValidator;
import io.github.redissonratelimit.operation.RateLimitOperationSource;
import io.github.redissonratelimit.operation.RateLimitPolicies;
import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.redis.admin.RedissonRateLimiters;
import io.github.redissonratelimit.redis.membership.InstanceHeartbeat;

/**
 * Applies {@code @RateLimit} through Redisson's {@code RRateLimiter} when a {@link RedissonClient} bean
 * exists and {@code ratelimit.enabled} is not {@code false}. Runs after every auto-configuration Redisson's starter
 * has declared ({@code RedissonAutoConfiguration} up to 3.23, {@code RedissonAutoConfigurationV2} for Boot 3 from
 * 3.24 on, {@code RedissonAutoConfigurationV4} for Boot 4), so that its client is there, also on a Redisson too old
 * to run the limiter, which {@link RedissonVersionCheck} then refuses at startup. Without a client,
 * {@code NoRedissonClientAutoConfiguration} fails startup if any limit is declared.
 */
@AutoConfiguration(afterName = {
        "org.redisson.spring.starter.RedissonAutoConfiguration",
        "org.redisson.spring.starter.RedissonAutoConfigurationV2",
        "org.redisson.spring.starter.RedissonAutoConfigurationV4" })
@ConditionalOnClass(RedissonClient.class)
@ConditionalOnBean(RedissonClient.class)
@ConditionalOnProperty(prefix = "ratelimit", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
@ImportRuntimeHints(RateLimitRuntimeHints.class)
@Import(RateLimitBackendConfiguration.class)
public final class RateLimitAutoConfiguration {

    /** Name of the Redisson backend bean, which the {@link RateLimitBackendDecorator} beans wrap. */
    public static final String REDISSON_BACKEND = "redissonRateLimitBackend";

    /** Name of the decorator bean that adds the deadline and the circuit breaker. */
    public static final String RESILIENCE_DECORATOR = "rateLimitResilienceDecorator";

    /** Name of the decorator bean that answers known rejections from memory. */
    public static final String LOCAL_REJECTION_DECORATOR = "rateLimitLocalRejectionDecorator";

    /** Name of the decorator bean that waits for permits, for limits with a {@code waitTimeout}. */
    public static final String WAITING_DECORATOR = "rateLimitWaitingDecorator";

    /** Name of the decorator bean that serves leased limits from permits leased in batches. */
    public static final String LEASE_DECORATOR = "rateLimitLeaseDecorator";

    /** Name of the decorator bean that applies the {@code local} outage policy. */
    public static final String LOCAL_OUTAGE_DECORATOR = "rateLimitLocalOutageDecorator";

    /** How long startup waits for the warm-up: scripts, eviction policy and decisions together. */
    static final Duration WARM_UP_WAIT = Duration.ofSeconds(5);

    /** The executor Boot's task execution auto-configuration declares. */
    private static final String APPLICATION_TASK_EXECUTOR = "applicationTaskExecutor";

    /**
     * Bound like any {@code @ConfigurationProperties} bean, but declared here to mark it as infrastructure: the
     * advisor and the policies need it while bean post-processors are still being registered, which Spring would
     * otherwise report as "not eligible for getting processed by all BeanPostProcessors".
     */
    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    RateLimitProperties rateLimitProperties(Environment environment) {
        // before binding, so that a misspelt name is reported as such, not as the value it failed to set
        new UnknownPropertyCheck("ratelimit", RateLimitProperties.class).check(environment);
        return new RateLimitProperties();
    }

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    KeyExpressionParser rateLimitKeyExpressionParser(BeanFactory beanFactory) {
        return new KeyExpressionParser(beanFactory);
    }

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    RateLimitPolicies rateLimitPolicies(RateLimitProperties properties) {
        return new PropertiesRateLimitPolicies(properties);
    }

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    RateLimitOperationSource rateLimitOperationSource(KeyExpressionParser rateLimitKeyExpressionParser,
            RateLimitPolicies rateLimitPolicies) {
        return new AnnotationRateLimitOperationSource(rateLimitKeyExpressionParser, rateLimitPolicies);
    }

    @Bean
    @ConditionalOnMissingBean
    RateLimitDeclarationValidator rateLimitDeclarationValidator(RateLimitOperationSource rateLimitOperationSource,
            RateLimitPolicies rateLimitPolicies) {
        return new RateLimitDeclarationValidator(rateLimitOperationSource, rateLimitPolicies);
    }

    /**
     * Checks the Redisson on the class path as the context starts (the backend is only created by the first
     * limited call), so that a version the limiter cannot run on fails startup, not the calls.
     */
    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    RedissonVersionCheck rateLimitRedissonVersionCheck(ResourceLoader resourceLoader) {
        return new RedissonVersionCheck(resourceLoader.getClassLoader());
    }

    /**
     * Scripts in Redis's cache and the decision path run once before the first request, so that cold-start
     * decisions are one round trip on loaded code.
     */
    @Bean
    @ConditionalOnMissingBean
    RateLimitScriptWarmUp rateLimitScriptWarmUp(RedissonClient redissonClient,
            @Qualifier(REDISSON_BACKEND) ObjectProvider<RateLimitBackend> redissonRateLimitBackend,
            ObjectProvider<RateLimitBackend> rateLimitBackend, LimiterNaming rateLimitNaming,
            RateLimitProperties properties, ObjectProvider<BackendComposition> rateLimitBackendComposition) {
        Function<RateLimitBackend, RateLimitBackend> composedAround = redisson -> {
            rateLimitBackend.getIfUnique(); // composes it, unless the application has a backend of its own
            BackendComposition composition = rateLimitBackendComposition.getIfAvailable();
            return composition != null ? composition.around(redisson) : null;
        };
        return new RateLimitScriptWarmUp(redissonClient, WARM_UP_WAIT, redissonRateLimitBackend, composedAround,
                properties.getCircuitBreaker().getFailureThreshold(), rateLimitNaming);
    }

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    LimiterNaming rateLimitNaming(RateLimitProperties properties) {
        return new LimiterNaming(properties.getKeyPrefix(), properties.getMaxKeyLength(), properties.getKeyStyle());
    }

    /**
     * Every {@link RateLimitListener} bean (metrics, HTTP headers) is told the decisions; methods returning
     * {@code CompletableFuture} run on Boot's {@code applicationTaskExecutor} when there is one. Created with the
     * advisor, while post-processors are still being registered: the backend, the listeners and the executor
     * are obtained at the first limited call, so that none of them (nor the Redis client) is created early.
     */
    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    RateLimitInterceptor rateLimitInterceptor(RateLimitOperationSource rateLimitOperationSource,
            ObjectProvider<RateLimitBackend> rateLimitBackend,
            RateLimitProperties properties, ObjectProvider<RateLimitListener> rateLimitListeners,
            BeanFactory beanFactory, LimitOverrides rateLimitOverrides) {
        RateLimitInterceptor interceptor = new RateLimitInterceptor(rateLimitOperationSource,
                () -> rateLimitBackend.getObject());
        interceptor.setOverrides(rateLimitOverrides);
        interceptor.setDefaultBackendErrorPolicy(properties.getOnBackendError());
        interceptor.setListeners(() -> rateLimitListeners.orderedStream().toList());
        interceptor.setAsyncExecutor(() -> beanFactory.containsBean(APPLICATION_TASK_EXECUTOR)
                && beanFactory.isTypeMatch(APPLICATION_TASK_EXECUTOR, Executor.class)
                        ? beanFactory.getBean(APPLICATION_TASK_EXECUTOR, Executor.class) : null);
        return interceptor;
    }

    /**
     * What this instance remembers of limiters, each store registered where it is made; resets tell them all.
     * Infrastructure, declared here: the interceptor's local fallback registers with it while post-processors are
     * still being created.
     */
    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    LimiterMemories rateLimitLimiterMemories() {
        return new LimiterMemories();
    }

    /**
     * What limits under the {@code local} outage policy decide with while Redis gives none. Its instance count is
     * the heartbeat's, which starts beating only when the context has started (see {@link #rateLimitHeartbeat}).
     */
    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    LocalFallback rateLimitLocalFallback(RateLimitProperties properties, ObjectProvider<InstanceCount> instances,
            LimiterMemories rateLimitLimiterMemories) {
        LocalFallbackProperties local = properties.getLocalFallback();
        InstanceCount count = new LazyInstanceCount(instances, local.getInstances());
        return rateLimitLimiterMemories.register(new LocalFallback(count, local.getMaxLimiters()));
    }

    /**
     * How many instances share the limits, and when another last granted in memory: a heartbeat in Redis, started
     * with the context, stopped with it.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(InstanceCount.class)
    InstanceHeartbeat rateLimitHeartbeat(RedissonClient redissonClient, LimiterNaming rateLimitNaming,
            RateLimitProperties properties, ObjectProvider<LocalFallback> rateLimitLocalFallback) {
        LocalFallbackProperties local = properties.getLocalFallback();
        InstanceHeartbeat heartbeat = new InstanceHeartbeat(redissonClient, rateLimitNaming,
                local.getHeartbeatInterval(), local.getInstances());
        SingletonSupplier<LocalFallback> fallback = SingletonSupplier.of(rateLimitLocalFallback::getIfUnique);
        heartbeat.reportInMemoryGrants(() -> {
            LocalFallback known = fallback.get();
            return known == null ? -1 : known.millisSinceLastLocalGrant();
        });
        heartbeat.start(Duration.ofSeconds(2));
        return heartbeat;
    }

    /**
     * The limits overridden at runtime, which the interceptor applies to every call: kept in memory, filled from
     * Redis by {@link #rateLimiters}.
     */
    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    LimitOverrides rateLimitOverrides() {
        return new LimitOverrides();
    }

    /**
     * Resets and overrides for operators and code; reads the overrides stored in Redis and subscribes to the
     * other instances' events when created, unsubscribes when the context closes.
     */
    @Bean(initMethod = "start", destroyMethod = "stop")
    @ConditionalOnMissingBean(RateLimiters.class)
    RedissonRateLimiters rateLimiters(RedissonClient redissonClient, LimiterNaming rateLimitNaming,
            RateLimitOperationSource rateLimitOperationSource, LimitOverrides rateLimitOverrides,
            ObjectProvider<RateLimitBackend> rateLimitBackend, ObjectProvider<LocalFallback> rateLimitLocalFallback,
            LimiterMemories rateLimitLimiterMemories, RateLimitProperties properties) {
        // an application's own LocalFallback bean forgets with the others too (registering twice is harmless)
        rateLimitLocalFallback.ifAvailable(rateLimitLimiterMemories::register);
        RedissonRateLimiters rateLimiters = new RedissonRateLimiters(redissonClient, rateLimitNaming,
                rateLimitOperationSource::declaredLimits, rateLimitOverrides, rateLimitBackend::getIfAvailable,
                rateLimitLimiterMemories);
        rateLimiters.setOnConfigChange(properties.getOnConfigChange());
        return rateLimiters;
    }

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    RateLimitAdvisor rateLimitAdvisor(RateLimitOperationSource rateLimitOperationSource,
            RateLimitInterceptor rateLimitInterceptor, RateLimitProperties properties) {
        RateLimitAdvisor advisor = new RateLimitAdvisor(rateLimitOperationSource, rateLimitInterceptor);
        advisor.setOrder(properties.getOrder());
        return advisor;
    }
}
