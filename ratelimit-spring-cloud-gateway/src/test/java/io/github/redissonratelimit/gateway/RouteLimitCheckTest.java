package io.github.redissonratelimit.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.context.support.GenericApplicationContext;

import reactor.core.publisher.Flux;

import io.github.redissonratelimit.autoconfigure.DefaultsProperties;

/**
 * Pure logic: the startup check builds the routes and checks the limits when its own context is refreshed, and never
 * for a child context's refresh (a load balancer's, created at a request on a server thread, where building the
 * routes blocking must not happen).
 */
class RouteLimitCheckTest {

    private final AtomicInteger builds = new AtomicInteger();
    private final GenericApplicationContext context = new GenericApplicationContext();
    private final RedissonRouteRateLimiter limiter = new RedissonRouteRateLimiter(null, null, operations -> {
    }, null, null, new DefaultsProperties());
    private final RouteLimitCheck check;

    RouteLimitCheckTest() {
        RouteLocator routes = () -> Flux.<Route>empty().doOnSubscribe(subscription -> builds.incrementAndGet());
        context.registerBean(RouteLocator.class, () -> routes);
        context.refresh();
        check = new RouteLimitCheck(context.getBeanProvider(RouteLocator.class), limiter);
        check.setApplicationContext(context);
    }

    @Test
    void itsOwnContextsRefreshBuildsTheRoutesAndChecksTheLimits() {
        check.onApplicationEvent(new ContextRefreshedEvent(context));
        assertThat(builds).hasValue(1);

        limiter.getConfig().put("search", new RedissonRouteRateLimiter.Config().setRate(5).setBurst(10));
        assertThatThrownBy(() -> check.onApplicationEvent(new ContextRefreshedEvent(context)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Route 'search': redisson-rate-limiter.burst (10) is set");
    }

    @Test
    void aChildContextsRefreshIsNotItsOwn() {
        GenericApplicationContext child = new GenericApplicationContext(context);
        child.refresh();
        limiter.getConfig().put("search", new RedissonRouteRateLimiter.Config().setRate(5).setBurst(10));
        check.onApplicationEvent(new ContextRefreshedEvent(child));
        assertThat(builds).hasValue(0);
    }
}
