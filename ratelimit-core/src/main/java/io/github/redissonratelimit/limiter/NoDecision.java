package io.github.redissonratelimit.limiter;

import java.time.Duration;

/**
 * Marks a failure that means the backend gave no decision (its store was unreachable, too slow or refused the
 * command), as opposed to one that refuses the request itself: the limit's outage policy decides what happens to
 * the call. {@link io.github.redissonratelimit.RateLimitBackendUnavailableException} is the one a backend throws;
 * the decision stack recognises it through this type, so that the backend SPI does not depend on the exceptions of
 * the annotation API.
 */
public interface NoDecision {

    /**
     * How long the call to the store had been under way when the backend gave up on it (e.g. the decision deadline):
     * it was sent that long before, and the store may have answered other calls until then. Zero when nothing was
     * sent or the backend does not tell.
     */
    default Duration getWaited() {
        return Duration.ZERO;
    }
}
