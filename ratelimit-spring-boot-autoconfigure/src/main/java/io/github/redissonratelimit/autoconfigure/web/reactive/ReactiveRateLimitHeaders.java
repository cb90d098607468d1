package io.github.redissonratelimit.autoconfigure.web.reactive;

import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import io.github.redissonratelimit.autoconfigure.web.RateLimitHeaders;
import io.github.redissonratelimit.autoconfigure.web.ResponseLimits;
import io.github.redissonratelimit.log.LogSafe;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.outcome.RateLimitOutcome;

/**
 * Puts rate limit headers on WebFlux responses. Each exchange gets its own {@link ResponseLimits},
 * offered to limited reactive methods as a {@link RateLimitListener} in the Reactor context (told every limit of a
 * call once it is settled), and to the 429 handler and the routes as an exchange attribute; the headers are written
 * just before the response commits, after reading the remaining permits asynchronously when they are reported.
 * Limited methods that do not return a reactive type get headers only when rejected, since they have no Reactor
 * context.
 */
public class ReactiveRateLimitHeaders implements WebFilter, Ordered {

    private static final Log logger = LogFactory.getLog(ReactiveRateLimitHeaders.class);

    /** Early, so that the headers are in place whichever later filter or handler answers. */
    public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

    private final RateLimitHeaders headers;
    private final RateLimitBackend backend;

    public ReactiveRateLimitHeaders(RateLimitHeaders headers, RateLimitBackend backend) {
        this.headers = headers;
        this.backend = backend;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ResponseLimits limits = new ResponseLimits();
        exchange.getAttributes().put(ResponseLimits.ATTRIBUTE, limits);
        exchange.getResponse().beforeCommit(() -> write(exchange, limits));
        RateLimitListener listener = new RateLimitListener() {
            @Override
            public void onOutcomes(List<RateLimitOutcome> outcomes) {
            }

            @Override
            public void onSettled(List<RateLimitOutcome> settled, List<RateLimitOperation> notAsked) {
                limits.addAll(settled);
                limits.addNotAsked(notAsked);
            }
        };
        return chain.filter(exchange).contextWrite(Context.of(RateLimitListener.class, listener));
    }

    private Mono<Void> write(ServerWebExchange exchange, ResponseLimits limits) {
        if (limits.isEmpty()) {
            return Mono.empty();
        }
        Mono<Void> states = headers.readsRemaining() ? readStates(limits) : Mono.empty();
        return states.then(Mono.fromRunnable(() -> headers.render(limits.entries())
                .forEach(exchange.getResponse().getHeaders()::set)));
    }

    private Mono<Void> readStates(ResponseLimits limits) {
        return Flux.fromIterable(limits.entries())
                .filter(headers::needsStateRead)
                .flatMap(entry -> Mono.fromCompletionStage(() -> backend.state(entry.outcome().limiterName(),
                                entry.outcome().limit()))
                        .doOnNext(state -> limits.state(entry, state))
                        .onErrorResume(ex -> {
                            logger.debug("Could not read the remaining permits of "
                                    + LogSafe.text(entry.outcome().limiterName()), ex);
                            return Mono.empty();
                        }))
                .then();
    }
}
