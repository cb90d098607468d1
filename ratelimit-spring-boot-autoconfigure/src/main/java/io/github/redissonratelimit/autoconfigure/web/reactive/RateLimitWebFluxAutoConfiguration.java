package io.github.redissonratelimit.autoconfigure.web.reactive;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.web.reactive.DispatcherHandler;
import reactor.core.publisher.Mono;

import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.RateLimitProperties;
import io.github.redissonratelimit.autoconfigure.web.RateLimitHeaders;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.limiter.RateLimitBackend;

/**
 * The WebFlux counterpart of the Spring MVC support: HTTP 429 problem responses for rejections and rate
 * limit headers on the responses of limited calls ({@code ratelimit.headers.*}).
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass({ DispatcherHandler.class, ProblemDetail.class, Mono.class })
@ConditionalOnBean(RateLimitInterceptor.class)
public final class RateLimitWebFluxAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "ratelimit.headers", name = "enabled", havingValue = "true", matchIfMissing = true)
    ReactiveRateLimitHeaders reactiveRateLimitHeaders(RateLimitProperties properties, RateLimitBackend rateLimitBackend) {
        return new ReactiveRateLimitHeaders(new RateLimitHeaders(properties.getHeaders()), rateLimitBackend);
    }

    @Bean
    @ConditionalOnMissingBean
    ReactiveRateLimitProblemHandler reactiveRateLimitProblemHandler(RateLimitProperties properties) {
        return new ReactiveRateLimitProblemHandler(HttpStatusCode.valueOf(properties.getDenyStatus()));
    }
}
