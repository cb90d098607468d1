package io.github.redissonratelimit.autoconfigure.routes;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.core.Ordered;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import io.github.redissonratelimit.autoconfigure.web.ResponseLimits;
import io.github.redissonratelimit.interceptor.KeyedLimit;
import io.github.redissonratelimit.interceptor.RateLimitDecider;
import io.github.redissonratelimit.interceptor.RateLimitDecision;
import reactor.core.publisher.Mono;

/**
 * Applies {@code ratelimit.routes} to WebFlux requests, as {@link ServletRouteFilter} does to servlet ones, without
 * blocking: the decision, the response and the refunds of routes whose {@code charge-when} does not hold are chained.
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
        return Mono.fromCompletionStage(() -> decider.decide(limits)).flatMap(decision -> {
            ResponseLimits limitsSoFar = exchange.getAttributeOrDefault(ResponseLimits.ATTRIBUTE, new ResponseLimits());
            exchange.getAttributes().put(ResponseLimits.ATTRIBUTE, limitsSoFar);
            decision.notifyListeners(outcomes -> answers.headers(limitsSoFar, outcomes)
                    .forEach(exchange.getResponse().getHeaders()::set));
            ResponseEntity<ProblemDetail> refusal = answers.refusal(decision, method, path);
            return refusal != null ? write(exchange.getResponse(), refusal)
                    : chain.filter(exchange).then(Mono.defer(() -> settle(exchange, applied, decision)));
        });
    }

    /** Gives back the permits of the routes whose {@code charge-when} does not hold for the response status. */
    private static Mono<Void> settle(ServerWebExchange exchange, List<RouteTable.Applied> applied,
            RateLimitDecision decision) {
        HttpStatusCode status = exchange.getResponse().getStatusCode();
        int code = status == null ? 200 : status.value();
        Set<String> notCharged = RouteTable.notCharged(applied, code);
        return notCharged.isEmpty() ? Mono.empty()
                : Mono.fromCompletionStage(() -> decision.giveBack(operation -> notCharged.contains(operation.name())));
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
        byte[] body = RouteAnswers.json(problem.getBody()).getBytes(StandardCharsets.UTF_8);
        return response.writeWith(Mono.just(response.bufferFactory().wrap(body)));
    }
}
