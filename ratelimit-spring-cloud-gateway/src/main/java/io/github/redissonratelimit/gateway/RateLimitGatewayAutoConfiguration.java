package io.github.redissonratelimit.gateway;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.gateway.config.GatewayAutoConfiguration;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.RateLimitProperties;
import io.github.redissonratelimit.autoconfigure.web.RateLimitHeaders;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.operation.RateLimitOperationSource;

/**
 * The {@link RedissonRouteRateLimiter} bean {@code redissonRouteRateLimiter}, for routes whose
 * {@code RequestRateLimiter} filter names it ({@code rate-limiter: "#{@redissonRouteRateLimiter}"}) and, being primary,
 * for every such filter that names none. Primary because the gateway's filter factory takes a single
 * {@code RateLimiter}, and the gateway also declares its {@code redisRateLimiter} whenever a reactive Redis template
 * exists, as it does with Redisson's Spring Boot starter. Before the gateway's auto-configuration, whose
 * {@code RequestRateLimiter} filter factory needs a {@code RateLimiter} bean to exist.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class, before = GatewayAutoConfiguration.class)
@ConditionalOnClass(AbstractRateLimiter.class)
@ConditionalOnBean(RateLimitInterceptor.class)
public final class RateLimitGatewayAutoConfiguration {

    @Bean
    @Primary
    @ConditionalOnMissingBean
    RedissonRouteRateLimiter redissonRouteRateLimiter(RateLimitInterceptor rateLimitInterceptor,
            RateLimitProperties properties, RateLimitOperationSource rateLimitOperationSource,
            ConfigurationService configurationService) {
        return new RedissonRouteRateLimiter(rateLimitInterceptor.decider(),
                properties.getHeaders().isEnabled() ? new RateLimitHeaders(properties.getHeaders()) : null,
                rateLimitOperationSource.declaredLimits()::declare, configurationService);
    }
}
