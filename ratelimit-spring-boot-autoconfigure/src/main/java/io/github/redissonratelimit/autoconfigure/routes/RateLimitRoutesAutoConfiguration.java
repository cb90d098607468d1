package io.github.redissonratelimit.autoconfigure.routes;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.web.server.WebFilter;

import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.RateLimitProperties;
import io.github.redissonratelimit.autoconfigure.web.RateLimitHeaders;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.operation.RateLimitOperationSource;

/**
 * Limits on URL patterns declared in {@code ratelimit.routes}, without annotations: a servlet filter (Spring MVC)
 * or a {@link WebFilter} (WebFlux) at {@code ratelimit.route-filter-order}, deciding on the interceptor's path (the
 * same decision stack, overrides, listeners, 429 problem and headers). The routes are listed, reset and overridden
 * by name like annotated limits. Active only when a route is configured.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnWebApplication
@ConditionalOnClass(ProblemDetail.class)
@ConditionalOnBean(RateLimitInterceptor.class)
@Conditional(RateLimitRoutesAutoConfiguration.RoutesConfigured.class)
public final class RateLimitRoutesAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RouteTable rateLimitRouteTable(RateLimitProperties properties, RateLimitOperationSource rateLimitOperationSource) {
        RouteTable table = RouteTable.of(properties.getRoutes(), properties.getPolicies(),
                properties.getDefaults());
        rateLimitOperationSource.declaredLimits().declare(table.operations());
        return table;
    }

    static RouteAnswers answers(RateLimitProperties properties) {
        return new RouteAnswers(HttpStatusCode.valueOf(properties.getDenyStatus()),
                properties.getHeaders().isEnabled() ? new RateLimitHeaders(properties.getHeaders()) : null);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(FilterRegistrationBean.class)
    static class Servlet {

        @Bean
        @ConditionalOnMissingBean(name = "rateLimitRouteFilter")
        FilterRegistrationBean<ServletRouteFilter> rateLimitRouteFilter(RouteTable rateLimitRouteTable,
                RateLimitInterceptor rateLimitInterceptor, RateLimitProperties properties) {
            FilterRegistrationBean<ServletRouteFilter> registration = new FilterRegistrationBean<>(
                    new ServletRouteFilter(rateLimitRouteTable, rateLimitInterceptor.decider(), answers(properties)));
            registration.setOrder(properties.getRouteFilterOrder());
            registration.setName("rateLimitRouteFilter");
            return registration;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnClass(WebFilter.class)
    static class Reactive {

        @Bean
        @ConditionalOnMissingBean(name = "rateLimitRouteFilter")
        ReactiveRouteFilter rateLimitRouteFilter(RouteTable rateLimitRouteTable,
                RateLimitInterceptor rateLimitInterceptor, RateLimitProperties properties) {
            return new ReactiveRouteFilter(rateLimitRouteTable, rateLimitInterceptor.decider(), answers(properties),
                    properties.getRouteFilterOrder());
        }
    }

    /** At least one entry under {@code ratelimit.routes}. */
    static final class RoutesConfigured extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            boolean configured = Binder.get(context.getEnvironment())
                    .bind("ratelimit.routes", Bindable.mapOf(String.class, Object.class)).isBound();
            return configured ? ConditionOutcome.match("ratelimit.routes is configured")
                    : ConditionOutcome.noMatch("no ratelimit.routes");
        }
    }
}
