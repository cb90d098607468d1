package io.github.redissonratelimit.autoconfigure.routes;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.springframework.core.Ordered;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import io.github.redissonratelimit.autoconfigure.web.RateLimitProblems;
import io.github.redissonratelimit.autoconfigure.web.ResponseLimits;
import io.github.redissonratelimit.interceptor.HeldUntilTheEnd;
import io.github.redissonratelimit.interceptor.KeyedLimit;
import io.github.redissonratelimit.interceptor.RateLimitDecider;
import io.github.redissonratelimit.interceptor.RateLimitDecision;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

/**
 * Applies {@code ratelimit.routes} to WebFlux requests, as {@link ServletRouteFilter} does to servlet ones, without
 * blocking: the decision and the response are chained, and the permits of routes whose {@code charge-when} does not
 * hold are given back just before the response commits, so that its headers tell the permits after the refund. The
 * permits a request holds until its end (an in-flight limit's) go back when its response completed or failed, or the
 * exchange was cancelled (a client gone), even while its decision was on the way.
 */
public final class ReactiveRouteFilter implements WebFilter, Ordered {

    private final RouteTable routes;
    private final RateLimitDecider decider;
    private final RouteAnswers answers;
    private final int order;

    ReactiveRouteFilter(RouteTable routes, RateLimitDecider decider, RouteAnswers answers, int order) {
        this.routes = routes;
        this.decider = decider;
        this.answers = answers;
        this.order = order;
    }

    @Override
    public int getOrder() {
        return order;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        return exchange.getPrincipal().map(Principal::getName).map(name -> filter(exchange, chain, name))
                .defaultIfEmpty(Mono.defer(() -> filter(exchange, chain, null))).flatMap(filtered -> filtered);
    }

    private Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain, String principal) {
        ServerHttpRequest request = exchange.getRequest();
        List<RouteTable.Applied> applied = routes.match(routeRequest(request, principal));
        if (applied.isEmpty()) {
            return chain.filter(exchange);
        }
        String method = request.getMethod().name();
        String path = request.getPath().value();
        List<KeyedLimit> limits;
        try {
            limits = RouteTable.limitsOf(applied);
        }
        catch (RuntimeException ex) {
            return write(exchange.getResponse(), RouteAnswers.badRequest(ex, method, path));
        }
        HeldUntilTheEnd held = new HeldUntilTheEnd();
        return Mono.fromCompletionStage(() -> decider.decide(limits).thenApply(held::keep)).flatMap(decision -> {
            ResponseLimits limitsSoFar = exchange.getAttributeOrDefault(ResponseLimits.ATTRIBUTE, new ResponseLimits());
            exchange.getAttributes().put(ResponseLimits.ATTRIBUTE, limitsSoFar);
            ServerHttpResponse response = exchange.getResponse();
            decision.notifyListeners(answers.headersListener(limitsSoFar, response.getHeaders()::set));
            ResponseEntity<ProblemDetail> refusal = answers.refusal(decision, method, path);
            if (refusal != null) {
                return write(response, refusal);
            }
            if (!RouteTable.chargesByStatus(applied)) {
                return chain.filter(exchange);
            }
            // the status charge-when reads is final when the response commits: settle then, while its headers can
            // still tell the permits given back; or when the chain ends without committing, or is cancelled
            AtomicBoolean settled = new AtomicBoolean();
            Supplier<Mono<Void>> settlement = () -> settled.compareAndSet(false, true)
                    ? settle(response, applied, decision, limitsSoFar) : Mono.empty();
            response.beforeCommit(settlement);
            return chain.filter(exchange).then(Mono.defer(settlement)).doFinally(signal -> {
                if (signal == SignalType.CANCEL) {
                    settlement.get().subscribe();
                }
            });
        }).doFinally(signal -> held.end());
    }

    /**
     * Gives back the permits of the routes whose {@code charge-when} does not hold for the response status, and sets
     * the headers of every limit as it then stands unless the response was sent already.
     */
    private Mono<Void> settle(ServerHttpResponse response, List<RouteTable.Applied> applied,
            RateLimitDecision decision, ResponseLimits limitsSoFar) {
        HttpStatusCode status = response.getStatusCode();
        Set<String> notCharged = RouteTable.notCharged(applied, status == null ? 200 : status.value());
        if (notCharged.isEmpty()) {
            return Mono.empty();
        }
        return Mono.fromCompletionStage(() -> decision.giveBack(operation -> notCharged.contains(operation.name())))
                .then(Mono.fromRunnable(() -> {
                    try {
                        answers.headers(limitsSoFar, decision.limits()).forEach(response.getHeaders()::set);
                    }
                    catch (UnsupportedOperationException ex) {
                        // committed already (the chain ended after the response was sent): the refund is done
                    }
                }));
    }

    private static RouteRequest routeRequest(ServerHttpRequest request, String principal) {
        InetSocketAddress remote = request.getRemoteAddress();
        String address = remote == null ? null
                : remote.getAddress() != null ? remote.getAddress().getHostAddress() : remote.getHostString();
        return new RouteRequest(request.getMethod().name(), request.getPath().pathWithinApplication().value(),
                address, principal, request.getHeaders()::getFirst, request.getQueryParams()::getFirst, Map.of());
    }

    private static Mono<Void> write(ServerHttpResponse response, ResponseEntity<ProblemDetail> problem) {
        response.setStatusCode(problem.getStatusCode());
        response.getHeaders().addAll(problem.getHeaders());
        byte[] body = RateLimitProblems.json(problem.getBody()).getBytes(StandardCharsets.UTF_8);
        return response.writeWith(Mono.just(response.bufferFactory().wrap(body)));
    }
}
