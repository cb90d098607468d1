package io.github.redissonratelimit.gateway;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter.Response;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.autoconfigure.web.RateLimitHeaders;
import io.github.redissonratelimit.autoconfigure.web.RateLimitProblems;
import io.github.redissonratelimit.autoconfigure.web.ResponseLimits;
import io.github.redissonratelimit.interceptor.RateLimitDecision;

/**
 * What the limiter answers the {@code RequestRateLimiter} filter (allowed or not, and the headers), and how a refusal
 * is to be completed ({@link RefusalSlot}): a rejection as annotated limits answer it (its {@code Retry-After}, none
 * for an in-flight limit, and problem), a request refused by the outage policy with the outage status and
 * {@code Retry-After}.
 */
final class GatewayAnswers {

    private final RateLimitHeaders headers;
    private final boolean gatewayHeaders;
    private final HttpStatusCode denyStatus;

    /**
     * @param headers null: no rate limit headers
     * @param gatewayHeaders whether the headers include Spring Cloud Gateway's ({@code ratelimit.headers.style=gateway})
     * @param denyStatus the status of a request refused because Redis gave no decision ({@code ratelimit.deny-status})
     */
    GatewayAnswers(RateLimitHeaders headers, boolean gatewayHeaders, HttpStatusCode denyStatus) {
        this.headers = headers;
        this.gatewayHeaders = gatewayHeaders;
        this.denyStatus = denyStatus;
    }

    /** @param slot null: the request is not answered through {@link RefusalAnswerFilter} */
    Response decided(RateLimitDecision decision, RefusalSlot slot) {
        decision.notifyListeners(null);
        Map<String, String> rendered = new LinkedHashMap<>();
        if (headers != null) {
            ResponseLimits limits = new ResponseLimits();
            limits.addAll(decision.outcomes());
            rendered.putAll(headers.render(limits.entries()));
        }
        RateLimitExceededException rejection = decision.rejection();
        if (rejection != null) {
            if (rejection.isRetryAfterKnown()) {
                rendered.put(HttpHeaders.RETRY_AFTER, Long.toString(rejection.getRetryAfterSeconds()));
            }
            refuse(slot, new Refusal(null, rejection.getMessage(), null));
        }
        else if (decision.error() instanceof RateLimitBackendUnavailableException unavailable) {
            rendered.put(HttpHeaders.RETRY_AFTER, Long.toString(unavailable.getRetryAfterSeconds()));
            refuse(slot, new Refusal(denyStatus, RateLimitProblems.UNAVAILABLE_DETAIL, null));
        }
        return new Response(decision.passed(), rendered);
    }

    /**
     * A request whose key is blank, under the filter's empty-key contract.
     * @param status null: the request goes on unlimited; else the status it is refused with
     */
    Response noKey(String routeId, String limitName, HttpStatusCode status, RefusalSlot slot) {
        if (status == null) {
            return new Response(true, Map.of());
        }
        refuse(slot, new Refusal(status, "The request has no key for the rate limit '" + limitName + "'",
                "no key for rate limit '" + limitName + "' of route '" + routeId + "': its KeyResolver gave a blank key"));
        return new Response(false, Map.of());
    }

    /** A request on a route whose bucket is smaller than a request: refused without asking Redis. */
    Response refusedAll(String limitName, RedissonRouteRateLimiter.Config config, RefusalSlot slot) {
        Map<String, String> rendered = new LinkedHashMap<>();
        if (headers != null && gatewayHeaders) {
            rendered.put(RateLimitHeaders.GATEWAY_REMAINING_HEADER, "0");
            rendered.put(RateLimitHeaders.GATEWAY_REPLENISH_RATE_HEADER, Long.toString(config.getRate()));
            rendered.put(RateLimitHeaders.GATEWAY_BURST_CAPACITY_HEADER, Long.toString(config.getBurst()));
            rendered.put(RateLimitHeaders.GATEWAY_REQUESTED_TOKENS_HEADER, Long.toString(config.getPermits()));
        }
        refuse(slot, new Refusal(null, "The rate limit '" + limitName + "' allows no request", null));
        return new Response(false, rendered);
    }

    private static void refuse(RefusalSlot slot, Refusal refusal) {
        if (slot != null) {
            slot.refused(refusal);
        }
    }
}
