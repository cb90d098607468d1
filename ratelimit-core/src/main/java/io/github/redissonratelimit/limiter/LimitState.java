package io.github.redissonratelimit.limiter;

import java.time.Duration;
import java.util.Objects;

/**
 * What a limiter holds at one moment: the permits free now, and the time until the oldest grant
 * leaves the window and gives its permits back ({@link Duration#ZERO} when nothing is granted).
 */
public record LimitState(long available, Duration nextPermitIn) {

    public LimitState {
        Objects.requireNonNull(nextPermitIn, "nextPermitIn");
        if (available < 0) {
            available = 0;
        }
        if (nextPermitIn.isNegative()) {
            nextPermitIn = Duration.ZERO;
        }
    }
}
