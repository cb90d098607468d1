package io.github.redissonratelimit.limiter;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.Predicate;

/**
 * Every {@link LimiterMemory} of this instance, registered where it is created: a reset (from the actuator,
 * {@code RateLimiters}, {@code @ResetRateLimits} or another instance's event) tells them all at once.
 */
public final class LimiterMemories implements LimiterMemory {

    private final Set<LimiterMemory> memories = new CopyOnWriteArraySet<>();

    /** Adds {@code memory} (once, however often it is registered); returns it, for registering where it is made. */
    public <T extends LimiterMemory> T register(T memory) {
        memories.add(Objects.requireNonNull(memory, "memory"));
        return memory;
    }

    /** Tells every registered memory to forget the limiters {@code limiterNames} accepts. */
    @Override
    public void forget(Predicate<String> limiterNames) {
        for (LimiterMemory memory : memories) {
            memory.forget(limiterNames);
        }
    }
}
