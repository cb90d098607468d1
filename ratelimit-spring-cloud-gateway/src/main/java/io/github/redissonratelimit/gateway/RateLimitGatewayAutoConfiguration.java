package io.github.redissonratelimit.gateway;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.cloud.gateway.config.GatewayAutoConfiguration;
import org.springframework.cloud.gateway.filter.factory.RequestRateLimiterGatewayFilterFactory;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.http.HttpStatusCode;

import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.RateLimitHeaderStyle;
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
 * {@code RequestRateLimiter} filter factory needs a {@code RateLimiter} bean to exist. Beside it: the global filter
 * that completes the answer to a refused request, the one that gives back an in-flight limit's permits when the
 * exchange ends, and the startup check of every route's limit.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class, before = GatewayAutoConfiguration.class)
@ConditionalOnClass(AbstractRateLimiter.class)
@ConditionalOnBean(RateLimitInterceptor.class)
@EnableConfigurationProperties(RateLimitGatewayProperties.class)
public final class RateLimitGatewayAutoConfiguration {

    @Bean
    @Primary
    @ConditionalOnMissingBean
    RedissonRouteRateLimiter redissonRouteRateLimiter(RateLimitInterceptor rateLimitInterceptor,
            RateLimitProperties properties, RateLimitOperationSource rateLimitOperationSource,
            ConfigurationService configurationService,
            ObjectProvider<RequestRateLimiterGatewayFilterFactory> requestRateLimiterFactory) {
        GatewayAnswers answers = new GatewayAnswers(
                properties.getHeaders().isEnabled() ? new RateLimitHeaders(properties.getHeaders()) : null,
                properties.getHeaders().getStyle() == RateLimitHeaderStyle.GATEWAY,
                HttpStatusCode.valueOf(properties.getDenyStatus()));
        return new RedissonRouteRateLimiter(rateLimitInterceptor.decider(), answers,
                rateLimitOperationSource.declaredLimits()::declare, configurationService,
                new EmptyKeys(requestRateLimiterFactory), properties.getDefaults());
    }

    @Bean
    RefusalAnswerFilter rateLimitRefusalAnswerFilter(RateLimitGatewayProperties gatewayProperties) {
        return new RefusalAnswerFilter(gatewayProperties.isProblemBody());
    }

    @Bean
    ExchangeEndFilter rateLimitExchangeEndFilter() {
        return new ExchangeEndFilter();
    }

    @Bean
    RouteLimitCheck rateLimitRouteLimitCheck(ObjectProvider<RouteLocator> routes, RedissonRouteRateLimiter limiter) {
        return new RouteLimitCheck(routes, limiter);
    }
}
