package io.github.redissonratelimit.autoconfigure.web.reactive;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.server.ServerWebExchange;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitConditionException;
import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.RateLimitKeyException;
import io.github.redissonratelimit.autoconfigure.web.RateLimitProblems;
import io.github.redissonratelimit.autoconfigure.web.ResponseLimits;
import io.github.redissonratelimit.log.LogSafe;
import io.github.redissonratelimit.outcome.RateLimitOutcome;

/**
 * Answers a {@link RateLimitExceededException} from a WebFlux handler with the same HTTP 429 problem
 * response as in Spring MVC ({@link RateLimitProblems}), and adds the rejection to the exchange's rate
 * limit headers when {@link ReactiveRateLimitHeaders} is active. A call refused because Redis gave no
 * decision gets the configured status (503 by default), and a call whose key or condition could not be computed
 * gets 400, as in Spring MVC.
 */
@RestControllerAdvice
public class ReactiveRateLimitProblemHandler {

    private static final Log logger = LogFactory.getLog(ReactiveRateLimitProblemHandler.class);

    private final HttpStatusCode backendUnavailableStatus;

    public ReactiveRateLimitProblemHandler() {
        this(HttpStatus.SERVICE_UNAVAILABLE);
    }

    /** @param backendUnavailableStatus the status of a call refused because Redis gave no decision */
    public ReactiveRateLimitProblemHandler(HttpStatusCode backendUnavailableStatus) {
        this.backendUnavailableStatus = backendUnavailableStatus;
    }

    @ExceptionHandler(RateLimitExceededException.class)
    public ResponseEntity<ProblemDetail> handleRateLimitExceeded(RateLimitExceededException ex,
            ServerWebExchange exchange) {
        String path = exchange.getRequest().getPath().value();
        if (logger.isDebugEnabled()) {
            logger.debug(LogSafe.text("Rejected " + exchange.getRequest().getMethod() + " " + path + ": "
                    + ex.describe()));
        }
        ResponseLimits limits = exchange.getAttribute(ResponseLimits.ATTRIBUTE);
        if (limits != null) {
            limits.add(RateLimitOutcome.of(ex), null);
        }
        return RateLimitProblems.tooManyRequests(ex, path);
    }

    @ExceptionHandler(RateLimitBackendUnavailableException.class)
    public ResponseEntity<ProblemDetail> handleBackendUnavailable(RateLimitBackendUnavailableException ex,
            ServerWebExchange exchange) {
        String path = exchange.getRequest().getPath().value();
        if (logger.isDebugEnabled()) {
            logger.debug(LogSafe.text("Refused " + exchange.getRequest().getMethod() + " " + path + ": "
                    + ex.getMessage()));
        }
        return RateLimitProblems.backendUnavailable(ex, backendUnavailableStatus, path);
    }

    /** 400 for a call whose key could not be computed from its arguments, logged as one WARN line. */
    @ExceptionHandler(RateLimitKeyException.class)
    public ResponseEntity<ProblemDetail> handleBadKey(RateLimitKeyException ex, ServerWebExchange exchange) {
        String path = exchange.getRequest().getPath().value();
        if (logger.isWarnEnabled()) {
            logger.warn(RateLimitProblems.badKeyLogLine(ex, exchange.getRequest().getMethod().name(), path));
        }
        return RateLimitProblems.badKey(ex, path);
    }

    /** 400 for a call whose condition or skipIf could not be evaluated for its arguments, logged as one WARN line. */
    @ExceptionHandler(RateLimitConditionException.class)
    public ResponseEntity<ProblemDetail> handleBadCondition(RateLimitConditionException ex, ServerWebExchange exchange) {
        String path = exchange.getRequest().getPath().value();
        if (logger.isWarnEnabled()) {
            logger.warn(RateLimitProblems.badConditionLogLine(ex, exchange.getRequest().getMethod().name(), path));
        }
        return RateLimitProblems.badCondition(ex, path);
    }
}
