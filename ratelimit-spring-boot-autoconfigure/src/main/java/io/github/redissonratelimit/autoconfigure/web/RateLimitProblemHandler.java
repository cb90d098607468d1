package io.github.redissonratelimit.autoconfigure.web;

import java.net.URI;

import jakarta.servlet.http.HttpServletRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitExceededException;

/**
 * Answers a {@link RateLimitExceededException} from a Spring MVC handler with HTTP 429, a
 * {@code Retry-After} header (delay-seconds, rounded up) and an RFC 9457 problem detail whose
 * {@code detail} is the annotation's message. The key is not echoed: it may hold user data.
 *
 * <p>A call refused because Redis gave no decision ({@link RateLimitBackendUnavailableException}, policy
 * {@code deny}) gets the configured status (503 by default, or 429), with {@code Retry-After} set to when
 * Redis will be tried again.
 */
@RestControllerAdvice
public class RateLimitProblemHandler {

    private static final Log logger = LogFactory.getLog(RateLimitProblemHandler.class);

    private final HttpStatusCode backendUnavailableStatus;

    public RateLimitProblemHandler() {
        this(HttpStatus.SERVICE_UNAVAILABLE);
    }

    /** @param backendUnavailableStatus the status of a call refused because Redis gave no decision */
    public RateLimitProblemHandler(HttpStatusCode backendUnavailableStatus) {
        this.backendUnavailableStatus = backendUnavailableStatus;
    }

    @ExceptionHandler(RateLimitExceededException.class)
    public ResponseEntity<ProblemDetail> handleRateLimitExceeded(RateLimitExceededException ex,
            HttpServletRequest request) {
        if (logger.isDebugEnabled()) {
            logger.debug("Rejected " + request.getMethod() + " " + request.getRequestURI() + ": " + ex.describe());
        }
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, ex.getMessage());
        problem.setType(URI.create("about:blank"));
        problem.setTitle(HttpStatus.TOO_MANY_REQUESTS.getReasonPhrase());
        problem.setInstance(URI.create(request.getRequestURI()));
        return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
                .header(HttpHeaders.RETRY_AFTER, Long.toString(ex.getRetryAfterSeconds()))
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem);
    }

    @ExceptionHandler(RateLimitBackendUnavailableException.class)
    public ResponseEntity<ProblemDetail> handleBackendUnavailable(RateLimitBackendUnavailableException ex,
            HttpServletRequest request) {
        if (logger.isDebugEnabled()) {
            logger.debug("Refused " + request.getMethod() + " " + request.getRequestURI() + ": " + ex.getMessage());
        }
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(backendUnavailableStatus,
                "The request cannot be rate limited right now; try again later");
        problem.setType(URI.create("about:blank"));
        HttpStatus known = HttpStatus.resolve(backendUnavailableStatus.value());
        if (known != null) {
            problem.setTitle(known.getReasonPhrase());
        }
        problem.setInstance(URI.create(request.getRequestURI()));
        return ResponseEntity.status(backendUnavailableStatus)
                .header(HttpHeaders.RETRY_AFTER, Long.toString(ex.getRetryAfterSeconds()))
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem);
    }
}
