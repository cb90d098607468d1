package io.github.redissonratelimit.autoconfigure.routes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.Set;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.filter.OncePerRequestFilter;

import io.github.redissonratelimit.autoconfigure.web.RateLimitProblems;
import io.github.redissonratelimit.autoconfigure.web.ResponseLimits;
import io.github.redissonratelimit.autoconfigure.web.ServletRateLimitHeaders;
import io.github.redissonratelimit.interceptor.KeyedLimit;
import io.github.redissonratelimit.interceptor.RateLimitDecider;
import io.github.redissonratelimit.interceptor.RateLimitDecision;
import io.github.redissonratelimit.limiter.Completions;

/**
 * Applies {@code ratelimit.routes} to Spring MVC (servlet) requests, before the handler: the limits of every route
 * that covers the request are decided together on the decision path of {@code @RateLimit}; a refused request gets
 * the problem response, a passed one goes on. The permits of routes whose {@code charge-when} does not hold for the
 * response status are given back when the response starts its body (or ends without one), before its headers are
 * sent, so that they tell the permits after the refund. The permits a request holds until its end (an in-flight
 * limit's) go back when it ends: answered, failed or aborted, on this thread or asynchronously.
 */
public final class ServletRouteFilter extends OncePerRequestFilter {

    private final RouteTable routes;
    private final RateLimitDecider decider;
    private final RouteAnswers answers;

    ServletRouteFilter(RouteTable routes, RateLimitDecider decider, RouteAnswers answers) {
        this.routes = routes;
        this.decider = decider;
        this.answers = answers;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String path = request.getRequestURI().substring(request.getContextPath().length());
        List<RouteTable.Applied> applied = routes.match(routeRequest(request, path));
        if (applied.isEmpty()) {
            chain.doFilter(request, response);
            return;
        }
        List<KeyedLimit> limits;
        try {
            limits = RouteTable.limitsOf(applied);
        }
        catch (RuntimeException ex) {
            write(response, RouteAnswers.badRequest(ex, request.getMethod(), request.getRequestURI()));
            return;
        }
        RateLimitDecision decision = Completions.join(decider.decide(limits));
        ResponseLimits limitsSoFar = ServletRateLimitHeaders.limitsOf(request);
        decision.notifyListeners(answers.headersListener(limitsSoFar, response::setHeader));
        ResponseEntity<ProblemDetail> refusal = answers.refusal(decision, request.getMethod(), request.getRequestURI());
        if (refusal != null) {
            write(response, refusal);
            return;
        }
        if (!decision.holdsUntilTheEnd()) {
            proceed(request, response, chain, applied, decision, limitsSoFar);
            return;
        }
        try {
            proceed(request, response, chain, applied, decision, limitsSoFar);
        }
        finally {
            endWhenAnswered(request, decision);
        }
    }

    private void proceed(HttpServletRequest request, HttpServletResponse response, FilterChain chain,
            List<RouteTable.Applied> applied, RateLimitDecision decision, ResponseLimits limitsSoFar)
            throws ServletException, IOException {
        if (!RouteTable.chargesByStatus(applied)) {
            chain.doFilter(request, response);
            return;
        }
        // the status charge-when reads is final when the response starts its body: settle then, while its headers
        // can still tell the permits given back
        StatusSettledResponse settling = new StatusSettledResponse(response,
                status -> settle(applied, decision, status, limitsSoFar, response));
        try {
            chain.doFilter(request, settling);
        }
        catch (Throwable ex) {
            settling.settleAs(HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
            throw ex;
        }
        if (request.isAsyncStarted()) {
            // the handler answers later (a future, a Mono, SSE): settled when it starts its body, or ends
            request.getAsyncContext().addListener(new AsyncListener() {
                @Override
                public void onComplete(AsyncEvent event) {
                    settling.settle();
                }

                @Override
                public void onTimeout(AsyncEvent event) {
                }

                @Override
                public void onError(AsyncEvent event) {
                }

                @Override
                public void onStartAsync(AsyncEvent event) {
                }
            });
            return;
        }
        settling.settle();
    }

    /**
     * Gives back the permits a request held until its end (an in-flight limit's): now, when the handler answered or
     * failed on this thread (a client that went away fails the write), else when its asynchronous answer completes,
     * fails (a client gone) or times out.
     */
    private static void endWhenAnswered(HttpServletRequest request, RateLimitDecision decision) {
        if (request.isAsyncStarted()) {
            request.getAsyncContext().addListener(new AsyncEnd(decision));
            return;
        }
        decision.end();
    }

    /**
     * Gives back the permits of the routes whose {@code charge-when} does not hold for the response status, and sets
     * the headers of every limit as it then stands while the response is not committed.
     */
    private void settle(List<RouteTable.Applied> applied, RateLimitDecision decision, int status,
            ResponseLimits limitsSoFar, HttpServletResponse response) {
        Set<String> notCharged = RouteTable.notCharged(applied, status);
        if (notCharged.isEmpty()) {
            return;
        }
        Completions.join(decision.giveBack(operation -> notCharged.contains(operation.name())));
        if (!response.isCommitted()) {
            answers.headers(limitsSoFar, decision.limits()).forEach(response::setHeader);
        }
    }

    private static RouteRequest routeRequest(HttpServletRequest request, String path) {
        Principal principal = request.getUserPrincipal();
        return new RouteRequest(request.getMethod(), path, request.getRemoteAddr(),
                principal == null ? null : principal.getName(), request::getHeader, request::getParameter, Map.of());
    }

    private static void write(HttpServletResponse response, ResponseEntity<ProblemDetail> problem) throws IOException {
        response.setStatus(problem.getStatusCode().value());
        problem.getHeaders().forEach((name, values) -> response.setHeader(name, values.get(0)));
        byte[] body = RateLimitProblems.json(problem.getBody()).getBytes(StandardCharsets.UTF_8);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /** Ends a decision once its asynchronous request ended: completed, failed (a client gone) or timed out. */
    private static final class AsyncEnd implements AsyncListener {

        private final RateLimitDecision decision;

        AsyncEnd(RateLimitDecision decision) {
            this.decision = decision;
        }

        @Override
        public void onComplete(AsyncEvent event) {
            decision.end();
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            decision.end();
        }

        @Override
        public void onError(AsyncEvent event) {
            decision.end();
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
            // a new cycle of the same request: it has not ended
            event.getAsyncContext().addListener(this);
        }
    }
}
