package io.github.redissonratelimit.autoconfigure.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import io.github.redissonratelimit.local.LocalFallback;

/**
 * The {@code local} outage policy's meters: {@code ratelimit.local.active} (1 while this instance decides without
 * Redis, else 0), {@code ratelimit.local.activations} (how many times it started to) and
 * {@code ratelimit.local.instances} (the instance count each rate is divided by). The decisions themselves are
 * {@code ratelimit.requests} with {@code result=local_allowed} or {@code local_rejected}.
 */
public final class LocalFallbackMetrics implements MeterBinder {

    private final LocalFallback localFallback;

    public LocalFallbackMetrics(LocalFallback localFallback) {
        this.localFallback = localFallback;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("ratelimit.local.active", localFallback, fallback -> fallback.isActive() ? 1 : 0)
                .description("1 while this instance limits in memory because Redis gives no decision, else 0")
                .register(registry);
        FunctionCounter.builder("ratelimit.local.activations", localFallback, LocalFallback::getActivationCount)
                .description("Times this instance started to limit in memory because Redis gave no decision")
                .register(registry);
        Gauge.builder("ratelimit.local.instances", localFallback, fallback -> fallback.getInstances().instances())
                .description("Instances sharing the limits: what each rate is divided by while Redis gives no decision")
                .register(registry);
    }
}
