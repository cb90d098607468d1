package io.github.redissonratelimit.autoconfigure;

import io.github.redissonratelimit.limiter.RateLimitBackend;

/**
 * Wraps the backend that rate limited calls use. The auto-configuration builds that backend (the
 * {@link RateLimitBackend} bean) from the Redisson backend (bean {@value RateLimitAutoConfiguration#REDISSON_BACKEND})
 * and every bean of this type, applied in their order ({@code @Order} on the bean method or the class, or
 * {@link org.springframework.core.Ordered}): the lowest order wraps the Redisson backend itself, each next one wraps
 * the result, so the highest order is outermost and sees a call first. A decorator without an order is outermost.
 *
 * <p>The auto-configuration declares four, listed in {@link RateLimitBackendConfiguration}, each backing off for a
 * bean of the same name:
 * <ul>
 * <li>{@value RateLimitAutoConfiguration#RESILIENCE_DECORATOR} at {@link #RESILIENCE_ORDER}: the deadline
 * ({@code ratelimit.backend-timeout}) and the circuit breaker ({@code ratelimit.circuit-breaker.*}), right around
 * Redis;</li>
 * <li>{@value RateLimitAutoConfiguration#LOCAL_REJECTION_DECORATOR} at {@link #LOCAL_REJECTION_ORDER}, when
 * {@code ratelimit.local-rejection.enabled} is not false: rejections answered from memory during a flood, so that
 * they cost no Redis call and no deadline;</li>
 * <li>{@value RateLimitAutoConfiguration#WAITING_DECORATOR} at {@link #WAITING_ORDER}: waits for permits, for limits
 * with a {@code waitTimeout};</li>
 * <li>{@value RateLimitAutoConfiguration#LOCAL_OUTAGE_DECORATOR} at {@link #LOCAL_OUTAGE_ORDER}: the {@code local}
 * outage policy, outermost, so that a limit waiting for permits when Redis goes away is decided in memory.</li>
 * </ul>
 * To replace one, declare a decorator bean of its name; to remove one, declare one of its name that returns the
 * backend it is given. To put another store under the same layers, declare a {@link RateLimitBackend} bean named
 * {@value RateLimitAutoConfiguration#REDISSON_BACKEND}; a {@link RateLimitBackend} bean of your own (any other name)
 * replaces the whole stack, waiting and the outage policy included.
 */
@FunctionalInterface
public interface RateLimitBackendDecorator {

    /** Order of the deadline and circuit breaker: innermost, right around the Redisson backend. */
    int RESILIENCE_ORDER = 0;

    /** Order of the local rejection cache: around the deadline, so that a known rejection costs no Redis call. */
    int LOCAL_REJECTION_ORDER = 1000;

    /** Order of the wait for permits: each attempt goes through the layers inside it. */
    int WAITING_ORDER = 2000;

    /** The order of {@value RateLimitAutoConfiguration#LEASE_DECORATOR}: below the wait, above the rejections. */
    int LEASE_ORDER = 1500;

    /** Order of the local outage policy: outermost of the auto-configuration's decorators. */
    int LOCAL_OUTAGE_ORDER = 3000;

    /** The backend to use instead of {@code backend}, usually one that delegates to it. */
    RateLimitBackend decorate(RateLimitBackend backend);
}
