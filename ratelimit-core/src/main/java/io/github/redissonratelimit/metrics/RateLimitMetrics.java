package io.github.redissonratelimit.metrics;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.outcome.RateLimitOutcome;

/**
 * Records every decision in Micrometer:
 * <ul>
 * <li>counter {@value #REQUESTS}, tags {@code limit} (the limit's name) and {@code result}
 * ({@code allowed}, {@code rejected}, {@code error}, or {@code shadow_rejected}: a limit in shadow mode would
 * have rejected the call, which ran);</li>
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
            limit.requests(outcome.result()).increment();
            limit.latency().record(outcome.latency());
        }
    }

    private Meters register(String limit) {
        RateLimitOutcome.Result[] results = RateLimitOutcome.Result.values();
        Counter[] requests = new Counter[results.length];
        for (RateLimitOutcome.Result result : results) {
            requests[result.ordinal()] = Counter.builder(REQUESTS)
                    .description("Calls decided by a rate limit")
                    .tag("limit", limit).tag("result", result.tag())
                    .register(registry);
        }
        Timer latency = Timer.builder(BACKEND_LATENCY)
                .description("Time taken to ask Redis for permits, waiting included")
                .tag("limit", limit)
                .register(registry);
        return new Meters(requests, latency);
    }

    private record Meters(Counter[] counters, Timer latency) {

        Counter requests(RateLimitOutcome.Result result) {
            return counters[result.ordinal()];
        }
    }
}
