package io.github.redissonratelimit.gateway;

import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * Gives back the permits an exchange held until its end (an in-flight limit's, {@link HeldUntilTheEnd}) when the
 * rest of the gateway's filter chain ends: the response written, the exchange failed, or cancelled (a client gone).
 * Runs before every route filter, so that its end is the exchange's.
 */
final class ExchangeEndFilter implements GlobalFilter, Ordered {

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        HeldUntilTheEnd held = new HeldUntilTheEnd();
        return chain.filter(exchange).doFinally(signal -> held.end())
                .contextWrite(Context.of(HeldUntilTheEnd.class, held));
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 10;
    }
}
