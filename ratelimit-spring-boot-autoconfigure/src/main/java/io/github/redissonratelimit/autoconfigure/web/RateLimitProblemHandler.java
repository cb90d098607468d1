package io.github.redissonratelimit.autoconfigure.web;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitConditionException;
import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.RateLimitKeyException;
import io.github.redissonratelimit.log.LogSafe;

/**
 * Answers a {@link RateLimitExceededException} from a Spring MVC handler with HTTP 429, a
 * {@code Retry-After} header (delay-seconds, rounded up) and an RFC 9457 problem detail whose
 * {@code detail} is the annotation's message (see {@link RateLimitProblems}), plus the rate limit
 * headers of the response when they are enabled. The key is not echoed: it may hold user data.
 *
 * <p>A call refused because Redis gave no decision ({@link RateLimitBackendUnavailableException}, policy
 * {@code deny}) gets the configured status (503 by default, or 429), with {@code Retry-After} set to when
 * Redis will be tried again.
 *
 * <p>A call whose key could not be computed from its arguments ({@link RateLimitKeyException}: a value the
 * expression cannot use, or no key at all) gets 400 with a problem naming the limit, and one WARN line; so does
 * a call whose {@code condition} or {@code skipIf} could not be evaluated ({@link RateLimitConditionException}).
 */
@RestControllerAdvice
public class RateLimitProblemHandler {

    private static final Log logger = LogFactory.getLog(RateLimitProblemHandler.class);

    private final HttpStatusCode backendUnavailableStatus;
    private final ServletRateLimitHeaders headers;

    public RateLimitProblemHandler() {
        this(HttpStatus.SERVICE_UNAVAILABLE);
    }

    /** @param backendUnavailableStatus the status of a call refused because Redis gave no decision */
    public RateLimitProblemHandler(HttpStatusCode backendUnavailableStatus) {
        this(backendUnavailableStatus, null);
    }

    /**
     * @param backendUnavailableStatus the status of a call refused because Redis gave no decision
     * @param headers writes the rate limit headers of a rejection; null for none
     */
    public RateLimitProblemHandler(HttpStatusCode backendUnavailableStatus, ServletRateLimitHeaders headers) {
        this.backendUnavailableStatus = backendUnavailableStatus;
        this.headers = headers;
    }

    @ExceptionHandler(RateLimitExceededException.class)
    public ResponseEntity<ProblemDetail> handleRateLimitExceeded(RateLimitExceededException ex,
            HttpServletRequest request, HttpServletResponse response) {
        if (logger.isDebugEnabled()) {
            logger.debug(LogSafe.text("Rejected " + request.getMethod() + " " + request.getRequestURI() + ": "
                    + ex.describe()));
        }
        if (headers != null) {
            headers.rejected(request, response, ex);
        }
        return RateLimitProblems.tooManyRequests(ex, request.getRequestURI());
    }

    @ExceptionHandler(RateLimitBackendUnavailableException.class)
    public ResponseEntity<ProblemDetail> handleBackendUnavailable(RateLimitBackendUnavailableException ex,
            HttpServletRequest request) {
        if (logger.isDebugEnabled()) {
            logger.debug(LogSafe.text("Refused " + request.getMethod() + " " + request.getRequestURI() + ": "
                    + ex.getMessage()));
        }
        return RateLimitProblems.backendUnavailable(ex, backendUnavailableStatus, request.getRequestURI());
    }

    /** 400 for a call whose key could not be computed from its arguments, logged as one WARN line. */
    @ExceptionHandler(RateLimitKeyException.class)
    public ResponseEntity<ProblemDetail> handleBadKey(RateLimitKeyException ex, HttpServletRequest request) {
        if (logger.isWarnEnabled()) {
            logger.warn(RateLimitProblems.badKeyLogLine(ex, request.getMethod(), request.getRequestURI()));
        }
        return RateLimitProblems.badKey(ex, request.getRequestURI());
    }

    /** 400 for a call whose condition or skipIf could not be evaluated for its arguments, logged as one WARN line. */
    @ExceptionHandler(RateLimitConditionException.class)
    public ResponseEntity<ProblemDetail> handleBadCondition(RateLimitConditionException ex, HttpServletRequest request) {
        if (logger.isWarnEnabled()) {
            logger.warn(RateLimitProblems.badConditionLogLine(ex, request.getMethod(), request.getRequestURI()));
        }
        return RateLimitProblems.badCondition(ex, request.getRequestURI());
    }
}
