package io.github.redissonratelimit.benchmarks;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The decisions the section on leases runs, by name, the same in every JVM: {@code leased} the hot limit with a lease,
 * {@code unleased} its twin without, {@code raw} an {@link RRateLimiter} of the same rate, {@code near:<run>} the
 * limit that demand just exceeds, a key per run.
 */
final class LeaseDeciders {

    /** Properties of each JVM's application: a deadline no decision of the loaded machine runs into. */
    static final String[] PROPERTIES = { "ratelimit.backend-timeout=5s" };

    private final LeasedService service;
    private final RRateLimiter raw;

    LeaseDeciders(ConfigurableApplicationContext app, RedissonClient redisson) {
        this.service = app.getBean(LeasedService.class);
        this.raw = redisson.getRateLimiter("lease:raw");
        raw.trySetRate(RateType.OVERALL, LeasedService.HOT_RATE, Duration.ofSeconds(1), Limits.KEY_TTL);
    }

    BooleanSupplier decider(String name) {
        if (name.startsWith("near:")) {
            String run = name.substring("near:".length());
            return () -> AnnotatedContender.allowed(() -> service.near(run));
        }
        return switch (name) {
            case "leased" -> () -> AnnotatedContender.allowed(service::hot);
            case "unleased" -> () -> AnnotatedContender.allowed(service::hotUnleased);
            case "raw" -> raw::tryAcquire;
            default -> throw new IllegalArgumentException("Unknown decision " + name);
        };
    }
}
