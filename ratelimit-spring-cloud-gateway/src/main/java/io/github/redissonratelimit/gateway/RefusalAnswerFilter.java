package io.github.redissonratelimit.gateway;

import java.nio.charset.StandardCharsets;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.web.server.ServerWebExchange;

import io.github.redissonratelimit.autoconfigure.web.RateLimitProblems;
import io.github.redissonratelimit.log.LogSafe;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * Completes the answer to a request that {@link RedissonRouteRateLimiter} refused: the gateway's
 * {@code RequestRateLimiter} filter sets its status and completes the response without a body, so the response is
 * decorated to answer, when it completes, with the status the refusal calls for (the outage status, the empty-key
 * status) and the RFC 9457 problem body of annotated limits. Runs before every route filter.
 */
final class RefusalAnswerFilter implements GlobalFilter, Ordered {

    private static final Log logger = LogFactory.getLog(RefusalAnswerFilter.class);

    private final boolean problemBody;

    RefusalAnswerFilter(boolean problemBody) {
        this.problemBody = problemBody;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        RefusalSlot slot = new RefusalSlot();
        ServerWebExchange answering = exchange.mutate().response(new RefusalResponse(exchange, slot)).build();
        return chain.filter(answering).contextWrite(Context.of(RefusalSlot.class, slot));
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 10;
    }

    private final class RefusalResponse extends ServerHttpResponseDecorator {

        private final ServerWebExchange exchange;
        private final RefusalSlot slot;

        RefusalResponse(ServerWebExchange exchange, RefusalSlot slot) {
            super(exchange.getResponse());
            this.exchange = exchange;
            this.slot = slot;
        }

        @Override
        public Mono<Void> setComplete() {
            Refusal refusal = slot.refusal();
            if (refusal == null || isCommitted()) {
                return super.setComplete();
            }
            if (refusal.status() != null) {
                setStatusCode(refusal.status());
            }
            HttpStatusCode status = getStatusCode() != null ? getStatusCode() : HttpStatus.TOO_MANY_REQUESTS;
            String path = exchange.getRequest().getPath().value();
            if (refusal.logLine() != null && logger.isWarnEnabled()) {
                logger.warn(LogSafe.text("Answered " + exchange.getRequest().getMethod() + " " + path + " with "
                        + status.value() + ": " + refusal.logLine()));
            }
            if (!problemBody) {
                return super.setComplete();
            }
            byte[] body = RateLimitProblems.json(RateLimitProblems.problem(status, refusal.detail(), path))
                    .getBytes(StandardCharsets.UTF_8);
            ServerHttpResponse response = getDelegate();
            response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
            response.getHeaders().setContentLength(body.length);
            return response.writeWith(Mono.just(response.bufferFactory().wrap(body)));
        }
    }
}
