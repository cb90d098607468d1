package io.github.redissonratelimit.autoconfigure.health;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The {@code ratelimit} health indicator on Spring Boot 4, whose health API is in {@code spring-boot-health}
 * ({@code org.springframework.boot.health.contributor}): the details of {@link RateLimitHealth}, with status
 * {@code UP} while the circuit breaker is closed and {@link #DEGRADED} while it is open or half open, as
 * {@link RateLimitHealthIndicator} on Spring Boot 3 (whose Javadoc says why not {@code DOWN}).
 */
public final class RateLimitHealthContributor implements HealthIndicator {

    /** The status while Redis is skipped or probed after repeated failures. */
    public static final Status DEGRADED = new Status(RateLimitHealth.DEGRADED, RateLimitHealth.DEGRADED_DESCRIPTION);

    private final RateLimitHealth health;

    public RateLimitHealthContributor(RateLimitHealth health) {
        this.health = health;
    }

    @Override
    public Health health() {
        RateLimitHealth.Report report = health.report();
        return Health.status(report.degraded() ? DEGRADED : Status.UP).withDetails(report.details()).build();
    }
}
