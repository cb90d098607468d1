package io.github.redissonratelimit.gateway;

import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;

import io.github.redissonratelimit.interceptor.HeldUntilTheEnd;
import io.github.redissonratelimit.interceptor.RateLimitDecision;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * Gives back the permits an exchange held until its end (an in-flight limit's, {@link HeldUntilTheEnd}) when the
 * rest of the gateway's filter chain ends: the response written, the exchange failed, or cancelled (a client gone).
 * Runs before every route filter, so that its end is the exchange's; its {@link HeldUntilTheEnd} is in the Reactor
 * context of the chain, since {@code RateLimiter.isAllowed} does not see the exchange.
 */
final class ExchangeEndFilter implements GlobalFilter, Ordered {

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        HeldUntilTheEnd held = new HeldUntilTheEnd();
        return chain.filter(exchange).doFinally(signal -> held.end())
                .contextWrite(Context.of(HeldUntilTheEnd.class, held));
    }

    /**
     * Keeps {@code decision} until the exchange whose chain {@code context} belongs to ends, when it holds permits
     * until then; ends it at once when {@code context} has no exchange (the limiter asked outside the gateway's filter
     * chain: nothing tells when that request ends).
     */
    static RateLimitDecision keepUntilTheEnd(ContextView context, RateLimitDecision decision) {
        HeldUntilTheEnd exchange = context.getOrDefault(HeldUntilTheEnd.class, null);
        if (exchange != null) {
            return exchange.keep(decision);
        }
        if (decision.holdsUntilTheEnd()) {
            decision.end();
        }
        return decision;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 10;
    }
}
