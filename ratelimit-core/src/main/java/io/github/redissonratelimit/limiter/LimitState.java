package io.github.redissonratelimit.limiter;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a limiter holds at one moment: the permits free now, and the time until the oldest grant
 * leaves the window and gives its permits back ({@link Duration#ZERO} when nothing is granted).
 *
 * @param holders for a limit on calls in flight, who holds how many permits now: each instance (as its leases name it,
 *        {@code <pid>@<host>}) and the permits of its leases, most first; empty for the other algorithms and for a
 *        decision's own state
 */
public record LimitState(long available, Duration nextPermitIn, Map<String, Long> holders) {

    public LimitState {
        Objects.requireNonNull(nextPermitIn, "nextPermitIn");
        if (available < 0) {
            available = 0;
        }
        if (nextPermitIn.isNegative()) {
            nextPermitIn = Duration.ZERO;
        }
        holders = holders == null || holders.isEmpty() ? Map.of() : mostFirst(holders);
    }

    public LimitState(long available, Duration nextPermitIn) {
        this(available, nextPermitIn, Map.of());
    }

    private static Map<String, Long> mostFirst(Map<String, Long> holders) {
        Map<String, Long> sorted = new LinkedHashMap<>();
        holders.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .forEach(holder -> sorted.put(holder.getKey(), holder.getValue()));
        return Collections.unmodifiableMap(sorted);
    }
}
