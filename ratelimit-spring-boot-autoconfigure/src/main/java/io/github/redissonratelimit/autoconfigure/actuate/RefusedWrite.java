package io.github.redissonratelimit.autoconfigure.actuate;

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.util.MimeType;

import io.github.redissonratelimit.admin.RateLimiters;
import io.github.redissonratelimit.log.LogSafe;

/**
 * A write of the {@code ratelimits} endpoint refused for one of its values. Answered with an RFC 9457 problem
 * ({@code application/problem+json}, status 400) that names the field and the rule it breaks, and logged at WARN on
 * one line, without a stack trace, by {@code io.github.redissonratelimit.admin.RateLimiters} like the writes done.
 */
final class RefusedWrite extends RuntimeException {

    static final MimeType PROBLEM_JSON = MimeType.valueOf("application/problem+json");

    private static final Log logger = LogFactory.getLog(RateLimiters.class);

    private final String field;
    private final String rule;
    private final String detail;
    private final String logDetail;

    private RefusedWrite(String field, String rule, String detail, String logDetail) {
        super(detail, null, false, false);
        this.field = field;
        this.rule = rule;
        this.detail = detail;
        this.logDetail = logDetail;
    }

    /**
     * @param field the request's field at fault
     * @param value what the request gave for it, or {@code null} when it gave nothing
     * @param rule what the field must be, e.g. {@code must be a whole number of at least 1}
     */
    static RefusedWrite field(String field, String value, String rule) {
        return new RefusedWrite(field, rule, field + (value == null ? "" : " '" + value + "'") + " " + rule,
                field + (value == null ? "" : " '" + LogSafe.text(value) + "'") + " " + rule);
    }

    /**
     * @param field the request's field the refusal is about, or {@code null} for the request as a whole
     * @param reason why the write was refused, a sentence
     */
    static RefusedWrite because(String field, String reason) {
        return new RefusedWrite(field, reason, reason, LogSafe.text(reason));
    }

    /**
     * Logs the refusal and answers it.
     * @param action what was refused, e.g. {@code override rate limit}
     * @param name the limit's name as the request gave it
     * @param actor who asked
     */
    WebEndpointResponse<Map<String, Object>> respond(String action, String name, String actor) {
        logger.warn("Refused to " + action + " '" + LogSafe.text(name) + "' asked by '" + LogSafe.text(actor) + "': "
                + logDetail);
        Map<String, Object> problem = new LinkedHashMap<>();
        problem.put("type", "about:blank");
        problem.put("title", "Bad Request");
        problem.put("status", WebEndpointResponse.STATUS_BAD_REQUEST);
        problem.put("detail", "Did not " + action + " '" + name + "': " + detail);
        problem.put("limit", name);
        if (field != null) {
            problem.put("field", field);
        }
        problem.put("rule", rule);
        return new WebEndpointResponse<>(OperationResponseBody.of(problem), WebEndpointResponse.STATUS_BAD_REQUEST,
                PROBLEM_JSON);
    }
}
