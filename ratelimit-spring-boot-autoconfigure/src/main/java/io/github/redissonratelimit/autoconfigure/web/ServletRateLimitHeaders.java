package io.github.redissonratelimit.autoconfigure.web;

import java.util.List;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.log.LogSafe;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.outcome.RateLimitOutcome;

/**
 * Writes the rate limit headers of Spring MVC responses. As a {@link RateLimitListener} it sees every limit of each
 * settled call on the thread that decided it: when that thread serves a request ({@link RequestContextHolder}),
 * the limits join the request's {@link ResponseLimits} and the headers are set on the response right
 * away, before the handler writes a body. Calls outside a request (schedulers, other threads) are left
 * alone. The 429 handler adds the rejection of calls decided off the request thread.
 */
public class ServletRateLimitHeaders implements RateLimitListener {

    private static final Log logger = LogFactory.getLog(ServletRateLimitHeaders.class);

    private final RateLimitHeaders headers;
    private final RateLimitBackend backend;

    /** @param backend reads remaining permits when the headers report them and a decision did not tell them */
    public ServletRateLimitHeaders(RateLimitHeaders headers, RateLimitBackend backend) {
        this.headers = headers;
        this.backend = backend;
    }

    /** Nothing: the headers are written from every limit of the call once it is settled ({@link #onSettled}). */
    @Override
    public void onOutcomes(List<RateLimitOutcome> outcomes) {
    }

    @Override
    public void onSettled(List<RateLimitOutcome> outcomes, List<RateLimitOperation> notAsked) {
        RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
        if (!(attributes instanceof ServletRequestAttributes servlet) || servlet.getResponse() == null) {
            return;
        }
        ResponseLimits limits = limitsOf(servlet.getRequest());
        for (int i = 0; i < outcomes.size(); i++) {
            RateLimitOutcome outcome = outcomes.get(i);
            limits.add(outcome, headers.needsStateRead(new ResponseLimits.Entry(outcome, null)) ? state(outcome) : null);
        }
        if (!notAsked.isEmpty()) {
            limits.addNotAsked(notAsked);
        }
        write(servlet.getResponse(), limits);
    }

    /** Adds a rejection to the response's headers; called by the 429 handler. */
    public void rejected(HttpServletRequest request, HttpServletResponse response, RateLimitExceededException ex) {
        ResponseLimits limits = limitsOf(request);
        limits.add(RateLimitOutcome.of(ex), null);
        write(response, limits);
    }

    private LimitState state(RateLimitOutcome outcome) {
        try {
            return backend.state(outcome.limiterName(), outcome.limit()).toCompletableFuture().join();
        }
        catch (RuntimeException ex) {
            logger.debug("Could not read the remaining permits of " + LogSafe.text(outcome.limiterName()), ex);
            return null;
        }
    }

    /** The request's rate limit headers so far, shared by every limit the request meets (routes, then methods). */
    public static ResponseLimits limitsOf(HttpServletRequest request) {
        Object existing = request.getAttribute(ResponseLimits.ATTRIBUTE);
        if (existing instanceof ResponseLimits limits) {
            return limits;
        }
        ResponseLimits limits = new ResponseLimits();
        request.setAttribute(ResponseLimits.ATTRIBUTE, limits);
        return limits;
    }

    private void write(HttpServletResponse response, ResponseLimits limits) {
        if (response.isCommitted()) {
            return;
        }
        headers.render(limits.entries(), response::setHeader);
    }
}
