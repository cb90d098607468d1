package io.github.redissonratelimit.autoconfigure.web;

import java.net.URI;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitExceededException;

/**
 * The HTTP answers to a rate limit refusal, the same for Spring MVC and WebFlux: {@code Retry-After}
 * (delay-seconds, rounded up) and an RFC 9457 problem detail. The key is not echoed: it may hold user data.
 */
public final class RateLimitProblems {

    private RateLimitProblems() {
    }

    /**
     * 429 for a rejection; the problem's {@code detail} is the annotation's message.
     * @param path the request path, reported as the problem's {@code instance}
     */
    public static ResponseEntity<ProblemDetail> tooManyRequests(RateLimitExceededException ex, String path) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, ex.getMessage());
        problem.setTitle(HttpStatus.TOO_MANY_REQUESTS.getReasonPhrase());
        return respond(problem, HttpStatus.TOO_MANY_REQUESTS, ex.getRetryAfterSeconds(), path);
    }

    /**
     * {@code status} (503 by default) for a call refused because Redis gave no decision, with
     * {@code Retry-After} set to when Redis will be tried again.
     */
    public static ResponseEntity<ProblemDetail> backendUnavailable(RateLimitBackendUnavailableException ex,
            HttpStatusCode status, String path) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status,
                "The request cannot be rate limited right now; try again later");
        HttpStatus known = HttpStatus.resolve(status.value());
        if (known != null) {
            problem.setTitle(known.getReasonPhrase());
        }
        return respond(problem, status, ex.getRetryAfterSeconds(), path);
    }

    private static ResponseEntity<ProblemDetail> respond(ProblemDetail problem, HttpStatusCode status,
            long retryAfterSeconds, String path) {
        problem.setType(URI.create("about:blank"));
        problem.setInstance(URI.create(path));
        return ResponseEntity.status(status)
                .header(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds))
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem);
    }
}
