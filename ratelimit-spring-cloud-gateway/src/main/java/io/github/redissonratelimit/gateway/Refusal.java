package io.github.redissonratelimit.gateway;

import org.springframework.http.HttpStatusCode;

/**
 * How a request the limiter refused is answered, beyond what the {@code RequestRateLimiter} filter does (which sets
 * its own status and writes no body).
 *
 * @param status the status to answer with; null: the one the filter set (its {@code status-code}, 429 by default)
 * @param detail the problem's detail, for the client: never the key
 * @param logLine null: nothing to log; else the reason the request is logged for (one WARN line)
 */
record Refusal(HttpStatusCode status, String detail, String logLine) {
}
