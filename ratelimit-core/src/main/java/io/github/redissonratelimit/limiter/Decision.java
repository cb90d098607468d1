package io.github.redissonratelimit.limiter;

import java.time.Duration;

/**
 * The answer to one request for permits. A rejection tells how long until the permits can be free
 * (never negative; zero when they were freed in the meantime).
 */
public record Decision(boolean allowed, Duration retryAfter) {

    private static final Decision ALLOWED = new Decision(true, Duration.ZERO);

    public static Decision allow() {
        return ALLOWED;
    }

    public static Decision reject(Duration retryAfter) {
        return new Decision(false, retryAfter.isNegative() ? Duration.ZERO : retryAfter);
    }
}
