package io.github.redissonratelimit.benchmarks;

import java.time.Duration;

/**
 * The limits the contenders enforce. The main comparison measures allowed decisions, so every contender
 * gets a limit per user far above what this machine can ask for; the flood scenario uses a small one.
 */
final class Limits {

    /** Permits per user per second in the throughput runs: never reached, every decision is allowed. */
    static final long GENEROUS_RATE = 1_000_000;

    /** Permits per user per second in the flood scenario, flooded at ten times this. */
    static final long FLOOD_RATE = 100;

    /** The keep-alive of (a)'s limiters: the default of {@code ratelimit.key-ttl} that (b) runs with. */
    static final Duration KEY_TTL = Duration.ofHours(1);

    private Limits() {
    }
}
