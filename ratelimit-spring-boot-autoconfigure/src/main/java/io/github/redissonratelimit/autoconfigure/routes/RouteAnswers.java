package io.github.redissonratelimit.autoconfigure.routes;

import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitConditionException;
import io.github.redissonratelimit.RateLimitKeyException;
import io.github.redissonratelimit.autoconfigure.web.RateLimitHeaders;
import io.github.redissonratelimit.autoconfigure.web.RateLimitProblems;
import io.github.redissonratelimit.autoconfigure.web.ResponseLimits;
import io.github.redissonratelimit.interceptor.RateLimitDecision;
import io.github.redissonratelimit.log.LogSafe;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.outcome.RateLimitOutcome;

/**
 * What the route filters answer, servlet or reactive alike: the problem of a refused request (429, the outage
 * status, or 400 for a request whose key, cost or tier cannot be computed, logged in one line) and the rate limit
 * headers of a decided one.
 */
final class RouteAnswers {

    private static final Log logger = LogFactory.getLog(RouteAnswers.class);

    private final HttpStatusCode backendUnavailableStatus;
    private final RateLimitHeaders headers;

    /** @param headers null: no rate limit headers ({@code ratelimit.headers.enabled=false}) */
    RouteAnswers(HttpStatusCode backendUnavailableStatus, RateLimitHeaders headers) {
        this.backendUnavailableStatus = backendUnavailableStatus;
        this.headers = headers;
    }

    /** The problem to answer a decided request with, or null when it goes on. */
    ResponseEntity<ProblemDetail> refusal(RateLimitDecision decision, String method, String path) {
        if (decision.rejection() != null) {
            if (logger.isDebugEnabled()) {
                logger.debug(LogSafe.text("Rejected " + method + " " + path + ": " + decision.rejection().describe()));
            }
            return RateLimitProblems.tooManyRequests(decision.rejection(), path);
        }
        if (decision.error() instanceof RateLimitBackendUnavailableException unavailable) {
            return RateLimitProblems.backendUnavailable(unavailable, backendUnavailableStatus, path);
        }
        return null;
    }

    /** The 400 for a request whose limit cannot be computed, logged in one line without a stack trace. */
    static ResponseEntity<ProblemDetail> badRequest(RuntimeException ex, String method, String path) {
        if (ex instanceof RateLimitKeyException key) {
            logger.warn(RateLimitProblems.badKeyLogLine(key, method, path));
            return RateLimitProblems.badKey(key, path);
        }
        if (ex instanceof RateLimitConditionException condition) {
            logger.warn(RateLimitProblems.badConditionLogLine(condition, method, path));
            return RateLimitProblems.badCondition(condition, path);
        }
        throw ex;
    }

    /**
     * The headers of every limit of a request ({@link RateLimitDecision#limits()}), together with those already made
     * for the response ({@code limits}).
     */
    Map<String, String> headers(ResponseLimits limits, List<RateLimitOutcome> settled) {
        if (headers == null) {
            return Map.of();
        }
        limits.addAll(settled);
        return headers.render(limits.entries());
    }

    /** Sets the headers of every limit of each request it is told ({@link RateLimitListener#onSettled}). */
    RateLimitListener headersListener(ResponseLimits limits, BiConsumer<String, String> setHeader) {
        return new RateLimitListener() {
            @Override
            public void onOutcomes(List<RateLimitOutcome> outcomes) {
            }

            @Override
            public void onSettled(List<RateLimitOutcome> settled, List<RateLimitOperation> notAsked) {
                if (headers != null) {
                    limits.addAll(settled);
                    limits.addNotAsked(notAsked);
                    headers.render(limits.entries()).forEach(setHeader);
                }
            }
        };
    }
}
