package io.github.redissonratelimit.autoconfigure.health;

import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;

/**
 * The {@code ratelimit} health indicator (Spring Boot 3 Actuator): the details of {@link RateLimitHealth}, with
 * status {@code UP} while the circuit breaker is closed and {@link #DEGRADED} while it is open or half open.
 *
 * <p>{@code DEGRADED} is not {@code DOWN} on purpose: while Redis gives no decision the application still serves,
 * each limit applying its outage policy ({@code ratelimit.on-backend-error}), and taking every instance out of the
 * load balancer or restarting it would turn a Redis outage into an application outage. Spring Boot leaves a status
 * out of the aggregate and answers HTTP 200 for it unless configured otherwise, so the application's own status
 * stays what its other indicators say; to let it count, add it to
 * {@code management.endpoint.health.status.order} (and map it with
 * {@code management.endpoint.health.status.http-mapping.degraded}). Spring Boot 4's counterpart is
 * {@link RateLimitHealthContributor}.
 */
public final class RateLimitHealthIndicator implements HealthIndicator {

    /** The status while Redis is skipped or probed after repeated failures. */
    public static final Status DEGRADED = new Status(RateLimitHealth.DEGRADED, RateLimitHealth.DEGRADED_DESCRIPTION);

    private final RateLimitHealth health;

    public RateLimitHealthIndicator(RateLimitHealth health) {
        this.health = health;
    }

    @Override
    public Health health() {
        RateLimitHealth.Report report = health.report();
        return Health.status(report.degraded() ? DEGRADED : Status.UP).withDetails(report.details()).build();
    }
}
