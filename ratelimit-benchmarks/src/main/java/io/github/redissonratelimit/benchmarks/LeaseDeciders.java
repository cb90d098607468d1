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

    /** The property that records each permit's grant ({@link ReceiptRecorder}). */
    static final String RECEIPTS = "benchmark.lease-receipts";

    /**
     * Properties of each JVM's application: a deadline no decision of the loaded machine runs into, and the record of
     * each permit's grant.
     */
    static final String[] PROPERTIES = { "ratelimit.backend-timeout=5s", RECEIPTS + "=true" };

    private final LeasedService service;
    private final RRateLimiter raw;
    private final ReceiptRecorder receipts;

    LeaseDeciders(ConfigurableApplicationContext app, RedissonClient redisson) {
        this.service = app.getBean(LeasedService.class);
        this.receipts = app.getBean(ReceiptRecorder.class);
        this.raw = redisson.getRateLimiter("lease:raw");
        raw.trySetRate(RateType.OVERALL, LeasedService.HOT_RATE, Duration.ofSeconds(1), Limits.KEY_TTL);
    }

    /** Writes the grants of the permits spent from now on to {@code log} (null: nowhere). */
    void recordTo(ReceiptLog log) {
        receipts.recordTo(log);
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
