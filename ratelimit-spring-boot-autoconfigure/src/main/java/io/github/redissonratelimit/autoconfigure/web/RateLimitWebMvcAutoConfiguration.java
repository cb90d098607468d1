package io.github.redissonratelimit.autoconfigure.web;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.web.servlet.DispatcherServlet;

import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.RateLimitProperties;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;

/**
 * Turns rate limit rejections in Spring MVC into HTTP 429 problem responses.
 * Replace {@link RateLimitProblemHandler} with a bean of that type to change the response.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ DispatcherServlet.class, ProblemDetail.class })
@ConditionalOnBean(RateLimitInterceptor.class)
public final class RateLimitWebMvcAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RateLimitProblemHandler rateLimitProblemHandler(RateLimitProperties properties) {
        return new RateLimitProblemHandler(HttpStatusCode.valueOf(properties.getDenyStatus()));
    }
}
