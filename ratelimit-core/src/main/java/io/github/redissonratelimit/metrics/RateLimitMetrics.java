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
 * ({@code waitTimeout}) included.</li>
 * </ul>
 * A grant given back because a later limit rejected the call still counts as {@code allowed} for its
 * limit. The {@code limit} tag takes one value per declared limit, never per key.
 */
public final class RateLimitMetrics implements RateLimitListener {

    public static final String REQUESTS = "ratelimit.requests";
    public static final String BACKEND_LATENCY = "ratelimit.backend.latency";

    private final MeterRegistry registry;
    private final Map<String, Meters> meters = new ConcurrentHashMap<>();

    public RateLimitMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void onOutcomes(List<RateLimitOutcome> outcomes) {
        for (RateLimitOutcome outcome : outcomes) {
            Meters limit = meters.computeIfAbsent(outcome.limitName(), this::register);
            limit.requests(outcome).increment();
            limit.latency().record(outcome.latency());
        }
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
        return new Meters(requests, latency);
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

        Meters(AtomicReferenceArray<Counter> counters, Timer latency) {
            this.counters = counters;
            this.latency = latency;
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
    }
}
