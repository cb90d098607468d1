package io.github.redissonratelimit.local;

/**
 * How many application instances share the limits, and this instance's place among them: what the
 * {@link io.github.redissonratelimit.annotation.BackendErrorPolicy#LOCAL local} outage policy divides each rate by.
 * The auto-configuration uses a heartbeat every instance keeps in Redis
 * ({@code io.github.redissonratelimit.redis.membership.InstanceHeartbeat}), or {@link #fixed} when
 * {@code ratelimit.local-fallback.instances} is set.
 */
public interface InstanceCount {

    /** The live instances sharing the limits, this one included; at least 1. */
    int instances();

    /** This instance's place among the live ones, from 0: which instances take the remainder of an uneven split. */
    int rank();

    /**
     * Whether another instance granted permits in memory, or may have (it stopped beating without leaving): grants
     * Redis does not know. False when the count cannot tell (a fixed count).
     */
    default boolean othersDecidedInMemory() {
        return false;
    }

    /** When ({@link System#nanoTime}) another instance last granted in memory, or may have; see {@link #othersDecidedInMemory}. */
    default long othersInMemoryAt() {
        return 0L;
    }

    /** Where the count comes from, for log lines (e.g. "heartbeat", "ratelimit.local-fallback.instances"). */
    default String source() {
        return getClass().getSimpleName();
    }

    /**
     * The permits of {@code rate} that this instance may grant in one interval on its own: {@code rate / instances},
     * the remainder going to the instances of the lowest ranks, so that the shares add up to the rate exactly.
     */
    default long shareOf(long rate) {
        int count = Math.max(1, instances());
        int place = Math.floorMod(rank(), count);
        return rate / count + (place < rate % count ? 1 : 0);
    }

    /** A count that does not change; {@code rank} places this instance for the remainder of uneven splits. */
    static InstanceCount fixed(int instances, int rank) {
        if (instances < 1) {
            throw new IllegalArgumentException("instances must be at least 1 but was " + instances);
        }
        return new InstanceCount() {

            @Override
            public int instances() {
                return instances;
            }

            @Override
            public int rank() {
                return rank;
            }

            @Override
            public String source() {
                return "fixed";
            }
        };
    }
}
