package io.github.redissonratelimit.coldstart;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.outcome.RateLimitOutcome;
import io.github.redissonratelimit.outcome.CircuitState;

/**
 * Added to the sample app that {@link ColdStartBurstTest} starts in a fresh JVM ({@code spring.main.sources}; its
 * package is outside the sample's component scan): counts the circuit's openings and the backend failures through
 * the {@link RateLimitListener} callbacks, keeps the latency of the first decisions, and reports them at
 * {@code GET /coldstart-probe}.
 */
@RestController
public class ColdStartProbe implements RateLimitListener {

    static final int FIRST = 20;

    private final AtomicInteger openings = new AtomicInteger();
    private final ConcurrentLinkedQueue<String> transitions = new ConcurrentLinkedQueue<>();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong decisions = new AtomicLong();
    private final AtomicLong slow = new AtomicLong();
    private final LongAccumulator maxNanos = new LongAccumulator(Math::max, 0);
    private final ConcurrentLinkedQueue<Long> firstNanos = new ConcurrentLinkedQueue<>();

    @Override
    public void onOutcomes(List<RateLimitOutcome> outcomes) {
        for (RateLimitOutcome outcome : outcomes) {
            long nanos = outcome.latency().toNanos();
            if (decisions.getAndIncrement() < FIRST) {
                firstNanos.add(nanos);
            }
            if (nanos > Duration.ofMillis(100).toNanos()) {
                slow.incrementAndGet();
            }
            maxNanos.accumulate(nanos);
        }
    }

    @Override
    public void onBackendFailure(String limiterName, Throwable error) {
        failures.incrementAndGet();
    }

    @Override
    public void onCircuitStateChange(CircuitState from, CircuitState to) {
        transitions.add(from + "->" + to);
        if (to == CircuitState.OPEN) {
            openings.incrementAndGet();
        }
    }

    @GetMapping("/coldstart-probe")
    public Map<String, Object> report() {
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("openings", openings.get());
        report.put("transitions", List.copyOf(transitions));
        report.put("backendFailures", failures.get());
        report.put("decisions", decisions.get());
        report.put("decisionsOver100ms", slow.get());
        report.put("maxMs", millis(maxNanos.get()));
        List<Double> first = new ArrayList<>();
        firstNanos.forEach(nanos -> first.add(millis(nanos)));
        report.put("firstDecisionsMs", first);
        return report;
    }

    private static double millis(long nanos) {
        return Math.round(nanos / 10_000.0) / 100.0;
    }
}
