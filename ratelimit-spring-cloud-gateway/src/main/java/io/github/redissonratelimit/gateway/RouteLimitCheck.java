package io.github.redissonratelimit.gateway;

import java.time.Duration;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * Fails startup when a gateway route's limit cannot work, naming the route and the argument. The gateway builds
 * its routes after the context is refreshed and only logs a route it cannot build, so the routes are built here
 * first (which binds every route's arguments), then every configured limit, those set in Java included, is checked.
 */
final class RouteLimitCheck implements ApplicationListener<ContextRefreshedEvent>, ApplicationContextAware {

    private static final Duration ROUTES_TIMEOUT = Duration.ofSeconds(30);

    private final ObjectProvider<RouteLocator> routes;
    private final RedissonRouteRateLimiter limiter;
    private ApplicationContext context;

    /** @param routes the gateway's (primary, caching) route locator */
    RouteLimitCheck(ObjectProvider<RouteLocator> routes, RedissonRouteRateLimiter limiter) {
        this.routes = routes;
        this.limiter = limiter;
    }

    @Override
    public void setApplicationContext(ApplicationContext context) {
        this.context = context;
    }

    /**
     * Only for this context: child contexts (a load balancer's, created at a request on a server thread) publish the
     * event to their parent too, and the routes must not be built blocking there.
     */
    @Override
    public void onApplicationEvent(ContextRefreshedEvent event) {
        if (event.getApplicationContext() != context) {
            return;
        }
        try {
            RouteLocator locator = routes.getIfUnique();
            if (locator != null) {
                locator.getRoutes().collectList().block(ROUTES_TIMEOUT);
            }
            limiter.checkAll();
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalStateException("A gateway route's rate limit cannot work: " + ex.getMessage(), ex);
        }
    }
}
