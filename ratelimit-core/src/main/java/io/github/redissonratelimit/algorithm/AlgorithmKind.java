package io.github.redissonratelimit.algorithm;

import java.util.Set;
import java.util.function.Function;

import io.github.redissonratelimit.annotation.RateLimitAlgorithm;

/**
 * One algorithm as {@link Algorithms} registers it: its name, the settings it takes besides rate and interval, and how
 * it is built from them.
 *
 * @param type its name in annotations and properties
 * @param description how messages name it, e.g. {@code a token bucket}
 * @param takes the settings that mean something for it
 * @param build builds it from resolved settings; throws {@link IllegalArgumentException} for a value out of range
 */
record AlgorithmKind(RateLimitAlgorithm type, String description, Set<Algorithms.Takes> takes,
        Function<Algorithms.Values, LimitAlgorithm> build) {
}
