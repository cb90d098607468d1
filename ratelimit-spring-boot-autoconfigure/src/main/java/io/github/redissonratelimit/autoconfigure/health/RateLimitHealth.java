package io.github.redissonratelimit.autoconfigure.health;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.autoconfigure.RedisEvictionPolicy;
import io.github.redissonratelimit.limiter.DelegatingRateLimitBackend;
import io.github.redissonratelimit.limiter.MasterLocator;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.local.LocalFallback;
import io.github.redissonratelimit.outcome.CircuitState;
import io.github.redissonratelimit.resilience.CircuitStates;
import io.github.redissonratelimit.resilience.ResilientRateLimitBackend;

/**
 * What the {@code ratelimit} health indicator reports, independent of the Spring Boot generation that shows it
 * (the thin adapters are {@link RateLimitHealthIndicator} for Spring Boot 3's Actuator and
 * {@link RateLimitHealthContributor} for Spring Boot 4's {@code spring-boot-health}):
 * the circuit breaker in front of Redis, the outage policy in force while it is open, the {@code maxmemory-policy}
 * of each Redis master, the latency of the recent decisions and what outages cost so far.
 *
 * <p>The details, in order: {@code circuit} ({@code CLOSED}, {@code OPEN} or {@code HALF_OPEN}; {@code none} when
 * the backend has no circuit breaker), {@code onBackendError} (the default outage policy, {@code allow} or
 * {@code deny}; a limit may override it), {@code backendTimeout}, {@code backendFailures} and {@code skippedCalls}
 * (since start), {@code localFallback} (the local outage policy: whether this instance decides in memory now, the
 * instance count each rate is divided by and where it comes from, how many times it switched), {@code latency} (decisions in the window, {@code p50Ms}, {@code p99Ms}, {@code maxMs}) and
 * {@code redis}: per master ({@code host:port}), its {@code maxmemoryPolicy} ({@code unknown} when it could not be
 * read, with the {@code problem}, e.g. a master that is down: the others keep theirs), whether it
 * {@code evictsLimiterKeys} and, on a Redis Cluster, the {@code circuit} of that master ({@code CLOSED} until its
 * first decision; {@code circuit} at the top is then the worst of them).
 *
 * <p>{@link Report#degraded()}: the circuit is not closed, so Redis is skipped or probed and calls get the outage
 * policy; {@link Report#status()} is then {@value #DEGRADED} instead of {@value #UP}.
 *
 * <p>{@link #report()} is the one place that computes the details; a new detail (e.g. a per-master state) goes
 * there, or into the per-master map of {@code redis()}, and both adapters show it.
 */
public final class RateLimitHealth {

    /** The status code while the circuit is closed. */
    public static final String UP = "UP";

    /** The status code while Redis is skipped or probed after repeated failures. */
    public static final String DEGRADED = "DEGRADED";

    /** The description of {@link #DEGRADED}. */
    public static final String DEGRADED_DESCRIPTION = "Redis gives no rate limit decisions; the outage policy applies";

    private final Supplier<? extends CircuitStates> circuits;
    private final Supplier<RedissonClient> redisson;
    private final BackendErrorPolicy onBackendError;
    private final RecentDecisionLatency latency;
    private final Duration redisWait;
    private volatile Supplier<LocalFallback> localFallback = () -> null;

    /**
     * @param circuits the deadline and circuit breaker in front of Redis, looked up per report; may supply null
     * (no circuit breaker, e.g. under a backend of the application's own)
     * @param redisson the client whose masters are asked for their eviction policy; may supply null
     * @param onBackendError the default outage policy
     * @param redisWait how long a report waits for the masters' eviction policy
     */
    public RateLimitHealth(Supplier<? extends CircuitStates> circuits, Supplier<RedissonClient> redisson,
            BackendErrorPolicy onBackendError, RecentDecisionLatency latency, Duration redisWait) {
        this.circuits = circuits;
        this.redisson = redisson;
        this.onBackendError = onBackendError;
        this.latency = latency;
        this.redisWait = redisWait;
    }

    /** The local outage policy whose state the report shows ({@code localFallback}); none when not set. */
    public void setLocalFallback(Supplier<LocalFallback> localFallback) {
        this.localFallback = localFallback;
    }

    /** One report: whether the limiter is degraded, and the details. */
    public Report report() {
        Map<String, Object> details = new LinkedHashMap<>();
        CircuitStates resilience = circuits.get();
        CircuitState circuit = resilience != null ? resilience.getState() : null;
        details.put("circuit", circuit != null ? circuit.name() : "none");
        details.put("onBackendError", onBackendError.name().toLowerCase(Locale.ROOT));
        if (resilience != null) {
            details.put("backendTimeout", resilience.getTimeout().toMillis() + "ms");
            details.put("backendFailures", resilience.getFailureCount());
            details.put("skippedCalls", resilience.getSkippedCount());
        }
        LocalFallback local = localFallback.get();
        if (local != null) {
            Map<String, Object> fallback = new LinkedHashMap<>();
            fallback.put("active", local.isActive());
            fallback.put("instances", local.getInstances().instances());
            fallback.put("instancesFrom", local.getInstances().source());
            fallback.put("activations", local.getActivationCount());
            details.put("localFallback", fallback);
        }
        details.put("latency", latency());
        details.put("redis", redis(resilience != null ? resilience.getMasterStates() : Map.of()));
        return new Report(circuit != null && circuit != CircuitState.CLOSED, details);
    }

    private Map<String, Object> latency() {
        RecentDecisionLatency.Snapshot snapshot = latency.snapshot();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("window", "the last " + latency.capacity() + " decisions within " + latency.maxAge().toSeconds()
                + "s");
        details.put("decisions", snapshot.decisions());
        if (snapshot.decisions() > 0) {
            details.put("p50Ms", millis(snapshot.p50()));
            details.put("p99Ms", millis(snapshot.p99()));
            details.put("maxMs", millis(snapshot.max()));
        }
        return details;
    }

    /**
     * Per master: its eviction policy and, on a Redis Cluster, the state of its own circuit ({@code CLOSED} for a
     * master not called yet). Each master's policy is awaited on its own within {@code redisWait} in all: a master
     * that does not answer shows {@code unknown} with the problem, the others their policy.
     */
    private Map<String, Object> redis(Map<String, CircuitState> circuits) {
        Map<String, Object> masters = new LinkedHashMap<>();
        RedissonClient client = redisson.get();
        if (client == null) {
            return masters;
        }
        masters.putAll(evictionPolicies(client, circuits.keySet()));
        if (isCluster(client) || circuits.keySet().stream().anyMatch(master -> !master.equals(MasterLocator.SINGLE_MASTER))) {
            masters.forEach((master, details) -> perMaster(details).put("circuit",
                    circuits.getOrDefault(master, CircuitState.CLOSED).name()));
            circuits.forEach((master, state) -> perMaster(masters.computeIfAbsent(master, address -> describe(
                    new RedisEvictionPolicy(address, null, "not among the masters the Redis client knows now"))))
                    .put("circuit", state.name()));
        }
        return masters;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> perMaster(Object details) {
        return (Map<String, Object>) details;
    }

    private static boolean isCluster(RedissonClient client) {
        try {
            return client.getConfig() != null && client.getConfig().isClusterConfig();
        }
        catch (RuntimeException ex) {
            return false;
        }
    }

    private Map<String, Object> evictionPolicies(RedissonClient client, Set<String> circuitMasters) {
        Map<String, CompletableFuture<RedisEvictionPolicy>> reads;
        try {
            reads = RedisEvictionPolicy.readEach(client);
        }
        catch (RuntimeException ex) {
            String problem = "the Redis masters are not known (" + ex.getClass().getSimpleName() + ")";
            Map<String, Object> unknown = new LinkedHashMap<>();
            (circuitMasters.isEmpty() ? Set.of(RedisEvictionPolicy.UNKNOWN) : circuitMasters).forEach(master ->
                    unknown.put(master, describe(new RedisEvictionPolicy(master, null, problem))));
            return unknown;
        }
        long deadline = System.nanoTime() + redisWait.toNanos();
        Map<String, Object> masters = new LinkedHashMap<>();
        reads.forEach((address, read) -> masters.put(address, describe(awaitPolicy(address, read, deadline))));
        return masters;
    }

    private RedisEvictionPolicy awaitPolicy(String address, CompletableFuture<RedisEvictionPolicy> read,
            long deadline) {
        try {
            return read.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return new RedisEvictionPolicy(address, null, "interrupted");
        }
        catch (TimeoutException ex) {
            return new RedisEvictionPolicy(address, null, "no answer within " + redisWait.toMillis() + "ms");
        }
        catch (Exception ex) {
            return new RedisEvictionPolicy(address, null, ex.getClass().getSimpleName());
        }
    }

    private static Map<String, Object> describe(RedisEvictionPolicy policy) {
        Map<String, Object> master = new LinkedHashMap<>();
        master.put("maxmemoryPolicy", policy.describe());
        if (policy.known()) {
            master.put("evictsLimiterKeys", policy.evictsLimiterKeys());
        }
        else {
            master.put("problem", policy.problem());
        }
        return master;
    }

    private static BigDecimal millis(Duration duration) {
        return BigDecimal.valueOf(duration.toNanos()).movePointLeft(6).setScale(3, RoundingMode.HALF_UP);
    }

    /**
     * @param degraded the circuit is open or half open: decisions get the outage policy, not Redis
     * @param details what the health endpoint shows
     */
    public record Report(boolean degraded, Map<String, Object> details) {

        /** {@value RateLimitHealth#DEGRADED} when degraded, else {@value RateLimitHealth#UP}. */
        public String status() {
            return degraded ? DEGRADED : UP;
        }
    }
}
