package io.github.redissonratelimit.benchmarks;

/** One way to take a permit for a user from a Redis-backed limiter. */
interface Contender {

    /** Short id used in tables: a, b, c, d. */
    String id();

    /** What is measured, for humans. */
    String description();

    /**
     * Takes one permit for user number {@code user}.
     *
     * @return whether it was granted
     */
    boolean decide(int user);
}
