package io.github.redissonratelimit.metrics;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.outcome.RateLimitOutcome;

/**
 * Records every decision in Micrometer:
 * <ul>
 * <li>counter {@value #REQUESTS}, tags {@code limit} (the limit's name) and {@code result}
 * ({@code allowed}, {@code rejected}, {@code error}, and, for limits in shadow mode only, {@code shadow_rejected}:
 * the limit would have rejected the call, which ran);</li>
 * <li>timer {@value #BACKEND_LATENCY}, tag {@code limit}: how long asking Redis took, waiting
 * ({@code waitTimeout}) included;</li>
 * <li>counter {@value #NEAR_LIMIT}, tag {@code limit}: decisions Redis allowed that left less than the near-limit
 * share of the limit's capacity (its rate, a token bucket's burst) free, read from the permits left that the
 * decision itself reports. Decisions made in memory during an outage are not counted: what they leave is this
 * instance's share, not the limit's.</li>
 * </ul>
 * A grant given back because a later limit rejected the call still counts as {@code allowed} for its
 * limit. The {@code limit} tag takes one value per declared limit, never per key.
 */
public final class RateLimitMetrics implements RateLimitListener {

    public static final String REQUESTS = "ratelimit.requests";
    public static final String BACKEND_LATENCY = "ratelimit.backend.latency";
    public static final String NEAR_LIMIT = "ratelimit.near.limit";

    /** As Envoy's ratelimit counts {@code near_limit}: decisions that reach 80 % of the limit. */
    public static final double DEFAULT_NEAR_LIMIT_SHARE = 0.2;

    private final MeterRegistry registry;
    private final double nearLimitShare;
    private final Map<String, Meters> meters = new ConcurrentHashMap<>();

    public RateLimitMetrics(MeterRegistry registry) {
        this(registry, DEFAULT_NEAR_LIMIT_SHARE);
    }

    /**
     * @param nearLimitShare an allowed decision that leaves fewer permits free than this share of the limit's
     * capacity counts as near the limit; 0 counts none (and registers no {@value #NEAR_LIMIT} meter)
     */
    public RateLimitMetrics(MeterRegistry registry, double nearLimitShare) {
        if (!(nearLimitShare >= 0 && nearLimitShare <= 1)) {
            throw new IllegalArgumentException("nearLimitShare must be between 0 and 1 but was " + nearLimitShare);
        }
        this.registry = registry;
        this.nearLimitShare = nearLimitShare;
    }

    @Override
    public void onOutcomes(List<RateLimitOutcome> outcomes) {
        for (RateLimitOutcome outcome : outcomes) {
            Meters limit = meters.computeIfAbsent(outcome.limitName(), this::register);
            limit.requests(outcome).increment();
            limit.latency().record(outcome.latency());
            if (limit.nearLimit() != null && nearLimit(outcome)) {
                limit.nearLimit().increment();
            }
        }
    }

    private boolean nearLimit(RateLimitOutcome outcome) {
        return outcome.result() == RateLimitOutcome.Result.ALLOWED && outcome.state() != null
                && outcome.state().available() < nearLimitShare * outcome.limit().capacity();
    }

    /**
     * The series of {@code allowed}, {@code rejected} and {@code error}; {@code shadow_rejected} (limits in shadow mode)
     * and {@code local_allowed} / {@code local_rejected} (decisions in memory during an outage) at their first use.
     */
    private Meters register(String limit) {
        RateLimitOutcome.Result[] results = RateLimitOutcome.Result.values();
        AtomicReferenceArray<Counter> requests = new AtomicReferenceArray<>(results.length);
        for (RateLimitOutcome.Result result : results) {
            if (result == RateLimitOutcome.Result.ALLOWED || result == RateLimitOutcome.Result.REJECTED
                    || result == RateLimitOutcome.Result.ERROR) {
                requests.set(result.ordinal(), counter(limit, result));
            }
        }
        Timer latency = Timer.builder(BACKEND_LATENCY)
                .description("Time taken to ask Redis for permits, waiting included")
                .tag("limit", limit)
                .register(registry);
        Counter nearLimit = nearLimitShare == 0 ? null : Counter.builder(NEAR_LIMIT)
                .description("Allowed calls that left less than the near-limit share of the limit free")
                .tag("limit", limit)
                .register(registry);
        return new Meters(requests, latency, nearLimit);
    }

    private Counter counter(String limit, RateLimitOutcome.Result result) {
        return Counter.builder(REQUESTS)
                .description("Calls decided by a rate limit")
                .tag("limit", limit).tag("result", result.tag())
                .register(registry);
    }

    private final class Meters {

        private final AtomicReferenceArray<Counter> counters;
        private final Timer latency;
        private final Counter nearLimit;

        Meters(AtomicReferenceArray<Counter> counters, Timer latency, Counter nearLimit) {
            this.counters = counters;
            this.latency = latency;
            this.nearLimit = nearLimit;
        }

        /** The counter of the outcome's result, registered at its first use (registering twice gives one). */
        Counter requests(RateLimitOutcome outcome) {
            int index = outcome.result().ordinal();
            Counter counter = counters.get(index);
            if (counter == null) {
                counter = counter(outcome.limitName(), outcome.result());
                counters.set(index, counter);
            }
            return counter;
        }

        Timer latency() {
            return latency;
        }

        /** Null when the near-limit share is 0. */
        Counter nearLimit() {
            return nearLimit;
        }
    }
}
