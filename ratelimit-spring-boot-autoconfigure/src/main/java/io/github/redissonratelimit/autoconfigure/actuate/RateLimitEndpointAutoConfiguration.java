package io.github.redissonratelimit.autoconfigure.actuate;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;
import org.springframework.web.context.WebApplicationContext;

import io.github.redissonratelimit.admin.RateLimiters;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.lease.LeaseCounts;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.operation.RateLimitOperationSource;

/**
 * Declares the {@code ratelimits} Actuator endpoint when Spring Boot Actuator is present. Like every
 * endpoint it is reachable over HTTP only once exposed, e.g.
 * {@code management.endpoints.web.exposure.include=health,ratelimits}; its writes (resets and overrides) go to
 * the {@link RateLimiters} bean.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
@ConditionalOnBean(RateLimitInterceptor.class)
public final class RateLimitEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RateLimitsEndpoint rateLimitsEndpoint(RateLimitOperationSource rateLimitOperationSource,
            LimiterNaming rateLimitNaming, RateLimitBackend rateLimitBackend, ObjectProvider<RateLimiters> rateLimiters,
            @Qualifier(RateLimitAutoConfiguration.LEASE_DECORATOR) ObjectProvider<LeaseCounts> leases,
            ApplicationContext context) {
        RateLimitsEndpoint endpoint = new RateLimitsEndpoint(rateLimitOperationSource, rateLimitNaming, rateLimitBackend,
                rateLimiters.getIfAvailable());
        endpoint.setLeases(leases.getIfAvailable());
        // a servlet application's context is a WebApplicationContext; a WebFlux one is not
        endpoint.setReactive(!(context instanceof WebApplicationContext)
                && ClassUtils.isPresent("org.springframework.web.reactive.DispatcherHandler", context.getClassLoader()));
        return endpoint;
    }
}
