package io.github.redissonratelimit.autoconfigure.metrics;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.beans.factory.ObjectProvider;

import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.outcome.RateLimitOutcome;
import io.github.redissonratelimit.outcome.CircuitState;

/**
 * Counts what Redis outages cost: {@code ratelimit.backend.failures} (decisions Redis failed or did not
 * give in time, tagged with the exception), {@code ratelimit.backend.skipped} (calls that did not try
 * Redis because the circuit was open) and the gauge {@code ratelimit.backend.circuit.open} (1 while Redis, or on a
 * Redis Cluster any master, is skipped or probed, else 0). The registry is looked up on first use, so that this listener can be
 * created before the application's {@link MeterRegistry}; as a {@link MeterBinder}, Spring Boot also hands it the
 * registry when that is created, so that the gauge and the skip counter are there, at 0, before the first outage.
 */
public final class RateLimitBackendMetrics implements RateLimitListener, MeterBinder {

    private final ObjectProvider<MeterRegistry> registries;
    private final AtomicInteger open = new AtomicInteger();
    private final Set<String> notClosed = ConcurrentHashMap.newKeySet();
    private volatile MeterRegistry registry;

    public RateLimitBackendMetrics(ObjectProvider<MeterRegistry> registries) {
        this.registries = registries;
    }

    /** The decisions themselves are counted by {@code RateLimitMetrics}. */
    @Override
    public void onOutcomes(List<RateLimitOutcome> outcomes) {
    }

    @Override
    public void onBackendFailure(String limiterName, Throwable error) {
        MeterRegistry meters = registry();
        if (meters != null) {
            Counter.builder("ratelimit.backend.failures")
                    .description("Rate limit decisions that Redis failed or did not give within the deadline")
                    .tag("exception", error.getClass().getSimpleName())
                    .register(meters).increment();
        }
    }

    @Override
    public void onBackendSkipped(String limiterName) {
        MeterRegistry meters = registry();
        if (meters != null) {
            skipped(meters).increment();
        }
    }

    private static Counter skipped(MeterRegistry meters) {
        return Counter.builder("ratelimit.backend.skipped")
                .description("Rate limited calls that did not try Redis because it failed repeatedly")
                .register(meters);
    }

    @Override
    public synchronized void bindTo(MeterRegistry meters) {
        if (registry == null) {
            register(meters);
        }
    }

    /** With one circuit per Redis Cluster master, the gauge is 1 while any of them is not closed. */
    @Override
    public void onCircuitStateChange(String master, CircuitState from, CircuitState to) {
        if (to == CircuitState.CLOSED) {
            notClosed.remove(master);
        }
        else {
            notClosed.add(master);
        }
        open.set(notClosed.isEmpty() ? 0 : 1);
        registry();
    }

    private MeterRegistry registry() {
        MeterRegistry current = registry;
        if (current == null) {
            synchronized (this) {
                current = registry;
                if (current == null) {
                    current = registries.getIfUnique();
                    if (current != null) {
                        register(current);
                    }
                }
            }
        }
        return current;
    }

    private void register(MeterRegistry meters) {
        Gauge.builder("ratelimit.backend.circuit.open", open, AtomicInteger::get)
                .description("1 while Redis is skipped after repeated failures, else 0")
                .register(meters);
        skipped(meters);
        registry = meters;
    }
}
