package io.github.redissonratelimit.benchmarks;

import java.util.List;

import io.github.redissonratelimit.resilience.CircuitStates;

/**
 * Decisions that got no answer from Redis within {@code ratelimit.backend-timeout}, summed over this project's
 * application contexts: each got the outage policy ({@code local}: decided in memory) although Redis was healthy.
 *
 * @param missed decisions that missed the deadline
 * @param lateAnswers those of them Redis answered within the liveness time
 * @param skipped calls not sent because a circuit was open
 * @param timeoutMillis the deadline
 */
record MissedDeadlines(long missed, long lateAnswers, long skipped, long timeoutMillis) {

    static MissedDeadlines of(List<CircuitStates> circuits) {
        return new MissedDeadlines(circuits.stream().mapToLong(CircuitStates::getFailureCount).sum(),
                circuits.stream().mapToLong(CircuitStates::getLateAnswerCount).sum(),
                circuits.stream().mapToLong(CircuitStates::getSkippedCount).sum(),
                circuits.get(0).getTimeout().toMillis());
    }

    MissedDeadlines minus(MissedDeadlines before) {
        return new MissedDeadlines(missed - before.missed, lateAnswers - before.lateAnswers, skipped - before.skipped,
                timeoutMillis);
    }
}
