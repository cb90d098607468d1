package io.github.redissonratelimit.autoconfigure.web;

import java.net.URI;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitConditionException;
import io.github.redissonratelimit.RateLimitCostException;
import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.RateLimitKeyException;
import io.github.redissonratelimit.log.LogSafe;

/**
 * The HTTP answers to a rate limit refusal, the same for Spring MVC and WebFlux: {@code Retry-After}
 * (delay-seconds, rounded up) and an RFC 9457 problem detail, and 400 for a call whose key or condition could not
 * be computed. Neither the key nor the input is echoed: they may hold user data.
 */
public final class RateLimitProblems {

    /** The detail of a call refused because Redis gave no decision. */
    public static final String UNAVAILABLE_DETAIL = "The request cannot be rate limited right now; try again later";

    private RateLimitProblems() {
    }

    /**
     * 429 for a rejection; the problem's {@code detail} is the annotation's message. {@code Retry-After} only when
     * the rejection knows when to retry ({@link RateLimitExceededException#isRetryAfterKnown()}; not an in-flight
     * limit's).
     * @param path the request path, reported as the problem's {@code instance}
     */
    public static ResponseEntity<ProblemDetail> tooManyRequests(RateLimitExceededException ex, String path) {
        return respond(problem(HttpStatus.TOO_MANY_REQUESTS, ex.getMessage(), path), HttpStatus.TOO_MANY_REQUESTS,
                ex.isRetryAfterKnown() ? ex.getRetryAfterSeconds() : -1);
    }

    /**
     * {@code status} (503 by default) for a call refused because Redis gave no decision, with
     * {@code Retry-After} set to when Redis will be tried again.
     */
    public static ResponseEntity<ProblemDetail> backendUnavailable(RateLimitBackendUnavailableException ex,
            HttpStatusCode status, String path) {
        return respond(problem(status, UNAVAILABLE_DETAIL, path), status, ex.getRetryAfterSeconds());
    }

    /**
     * 400 for a call whose rate limit key could not be computed from its arguments (the expression failed,
     * e.g. on a value too long for it, or gave null or a blank key). The detail names the limit by its display
     * name, never the input or the expression.
     */
    public static ResponseEntity<ProblemDetail> badKey(RateLimitKeyException ex, String path) {
        String limit = ex.getDisplayName() != null ? "the rate limit '" + ex.getDisplayName() + "'" : "a rate limit";
        return badRequest("The request has " + ex.getRequestProblem() + " for " + limit, path);
    }

    /**
     * 400 for a call whose {@code condition} or {@code skipIf} could not be evaluated for its arguments (the
     * expression failed, or gave something other than true or false). The detail names the limit by its display
     * name (its name, or the method it is declared on as clients see it), never the input or the expression.
     */
    public static ResponseEntity<ProblemDetail> badCondition(RateLimitConditionException ex, String path) {
        String limit = ex.getDisplayName() != null ? ex.getDisplayName() : displayName(ex.getMethod());
        return badRequest("The rate limit on '" + limit + "' cannot decide whether it applies to the request", path);
    }

    private static ResponseEntity<ProblemDetail> badRequest(String detail, String path) {
        return ResponseEntity.status(HttpStatus.BAD_REQUEST).contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem(HttpStatus.BAD_REQUEST, detail, path));
    }

    /**
     * The problem of every refusal: {@code status}, its reason phrase as the title (when the status is a known one),
     * {@code detail}, type {@code about:blank} and the request path as {@code instance}.
     */
    public static ProblemDetail problem(HttpStatusCode status, String detail, String path) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        HttpStatus known = HttpStatus.resolve(status.value());
        if (known != null) {
            problem.setTitle(known.getReasonPhrase());
        }
        problem.setType(URI.create("about:blank"));
        problem.setInstance(URI.create(path));
        return problem;
    }

    /** {@code com.example.Orders$Api.submit(String)} as clients see it: {@code Api.submit}. */
    static String displayName(String method) {
        if (method == null) {
            return "(unknown)";
        }
        int parameters = method.indexOf('(');
        String name = parameters >= 0 ? method.substring(0, parameters) : method;
        int dot = name.lastIndexOf('.');
        if (dot < 0) {
            return name;
        }
        String type = name.substring(0, dot);
        type = type.substring(Math.max(type.lastIndexOf('.'), type.lastIndexOf('$')) + 1);
        return type + name.substring(dot);
    }

    /**
     * The one WARN line a refused key is logged as (no stack trace: the input is to blame, and a flood of bad
     * requests must not flood the log with traces), escaped by {@link LogSafe}.
     */
    public static String badKeyLogLine(RateLimitKeyException ex, String method, String path) {
        return LogSafe.text("Answered " + method + " " + path + " with 400: "
                + (ex instanceof RateLimitCostException ? ex.getRequestProblem() : "no key") + " for rate limit "
                + (ex.getLimitName() != null ? "'" + ex.getLimitName() + "'" : "(unknown)") + ": " + ex.getMessage());
    }

    /**
     * The one WARN line a call whose condition could not be evaluated is logged as, like
     * {@link #badKeyLogLine}: no stack trace, escaped by {@link LogSafe}. The exception's message names the
     * attribute, the expression and the method.
     */
    public static String badConditionLogLine(RateLimitConditionException ex, String method, String path) {
        return LogSafe.text("Answered " + method + " " + path + " with 400: " + ex.getMessage());
    }

    /**
     * The problem as RFC 9457 JSON ({@code type}, {@code title}, {@code status}, {@code detail}, {@code instance}),
     * for an answer written without the application's message converters (a gateway or web filter).
     */
    public static String json(ProblemDetail problem) {
        StringBuilder json = new StringBuilder(200).append('{');
        field(json, "type", problem.getType() == null ? null : problem.getType().toString());
        field(json, "title", problem.getTitle());
        json.append("\"status\":").append(problem.getStatus()).append(',');
        field(json, "detail", problem.getDetail());
        field(json, "instance", problem.getInstance() == null ? null : problem.getInstance().toString());
        json.setLength(json.length() - 1);
        return json.append('}').toString();
    }

    private static void field(StringBuilder json, String name, String value) {
        if (value == null) {
            return;
        }
        json.append('"').append(name).append("\":\"");
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                default -> json.append(c < 0x20 ? String.format("\\u%04x", (int) c) : String.valueOf(c));
            }
        }
        json.append("\",");
    }

    /** The problem response, with {@code Retry-After} unless {@code retryAfterSeconds} is negative. */
    private static ResponseEntity<ProblemDetail> respond(ProblemDetail problem, HttpStatusCode status,
            long retryAfterSeconds) {
        ResponseEntity.BodyBuilder response = ResponseEntity.status(status);
        if (retryAfterSeconds >= 0) {
            response.header(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
        }
        return response.contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
    }
}
