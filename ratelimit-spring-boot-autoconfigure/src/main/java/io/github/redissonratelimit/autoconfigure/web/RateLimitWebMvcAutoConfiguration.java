package io.github.redissonratelimit.autoconfigure.web;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.web.servlet.DispatcherServlet;

import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.RateLimitProperties;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.limiter.RateLimitBackend;

/**
 * Turns rate limit rejections in Spring MVC into HTTP 429 problem responses, and puts rate limit
 * headers on the responses of limited calls ({@code ratelimit.headers.*}).
 * Replace {@link RateLimitProblemHandler} or {@link ServletRateLimitHeaders} with a bean of that type
 * to change them.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ DispatcherServlet.class, ProblemDetail.class })
@ConditionalOnBean(RateLimitInterceptor.class)
public final class RateLimitWebMvcAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "ratelimit.headers", name = "enabled", havingValue = "true", matchIfMissing = true)
    ServletRateLimitHeaders servletRateLimitHeaders(RateLimitProperties properties, RateLimitBackend rateLimitBackend) {
        return new ServletRateLimitHeaders(new RateLimitHeaders(properties.getHeaders()), rateLimitBackend);
    }

    @Bean
    @ConditionalOnMissingBean
    RateLimitProblemHandler rateLimitProblemHandler(RateLimitProperties properties,
            ObjectProvider<ServletRateLimitHeaders> servletRateLimitHeaders) {
        return new RateLimitProblemHandler(HttpStatusCode.valueOf(properties.getDenyStatus()),
                servletRateLimitHeaders.getIfAvailable());
    }
}
