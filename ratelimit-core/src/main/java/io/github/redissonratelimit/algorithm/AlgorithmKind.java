package io.github.redissonratelimit.algorithm;

import java.time.Duration;
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
 * @param interval what its interval is when it means something else than a window (an in-flight limit's lease
 * period), else null
 */
record AlgorithmKind(RateLimitAlgorithm type, String description, Set<Algorithms.Takes> takes,
        Function<Algorithms.Values, LimitAlgorithm> build, OwnInterval interval) {

    AlgorithmKind(RateLimitAlgorithm type, String description, Set<Algorithms.Takes> takes,
            Function<Algorithms.Values, LimitAlgorithm> build) {
        this(type, description, takes, build, null);
    }

    /**
     * An interval of a meaning of its own: named {@code meaning} in messages, {@code byDefault} when not set (the
     * default interval of rate limits does not apply), at least {@code shortest}.
     */
    record OwnInterval(String meaning, Duration byDefault, Duration shortest) {
    }
}
