package io.github.redissonratelimit.autoconfigure.actuate;

import java.security.Principal;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.lang.Nullable;

import io.github.redissonratelimit.admin.RateLimiters;
import io.github.redissonratelimit.lease.LeaseCounts;
import io.github.redissonratelimit.limiter.Completions;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.operation.LimitOverride;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.operation.RateLimitOperationSource;

/**
 * {@code /actuator/ratelimits}: every declared limit (method, key expression, rate, interval, mode, shadow mode,
 * cost, tiers, ...) and the overrides in force, and {@code /actuator/ratelimits/{name}/{key}} the live state of one
 * key of the limit called {@code name} (its name or display name; a route's key is the value its key expression
 * gives, {@code 127.0.0.1}, not the logical key {@code api:127.0.0.1}). For a limit without a key expression,
 * {@code /actuator/ratelimits/{name}} reads its one limiter; for a keyed limit it lists the declaration only.
 * Reading the state costs one Redis round trip and takes no permit. For a limit with a lease, the state also tells
 * what the instance that answers holds of it in memory ({@code lease}), which Redis counts as taken.
 *
 * <p>Writes, through {@link RateLimiters} (each logged at INFO with the request's principal):
 * <ul>
 * <li>{@code DELETE /actuator/ratelimits/{name}/{key}} resets one caller; a key that is not a plain path (or is
 * the word {@code override}) is given as a parameter instead: {@code DELETE /actuator/ratelimits/{name}?key=...};</li>
 * <li>{@code DELETE /actuator/ratelimits/{name}} resets every caller of the limit;</li>
 * <li>{@code POST /actuator/ratelimits/{name}} with {@code rate}, {@code interval} ({@code 30s}, {@code PT1M};
 * none for a calendar quota, whose period stays) and optionally {@code permits} overrides it on every instance;</li>
 * <li>{@code DELETE /actuator/ratelimits/{name}/override} removes the override: the one path segment
 * {@code override} is reserved for it.</li>
 * </ul>
 * A write refused for one of its values (a rate that is not a whole number, permits above the rate, an interval
 * that is not a duration, a key missing) answers 400 with an RFC 9457 problem ({@code application/problem+json})
 * whose {@code field} and {@code rule} name what is wrong, and is logged at WARN on one line.
 */
@Endpoint(id = "ratelimits")
public class RateLimitsEndpoint {

    /** The path segment after a limit's name that names its override, not a key. */
    public static final String OVERRIDE_SEGMENT = "override";

    /** Who a write is logged as when the request has no principal. */
    private static final String ANONYMOUS = "anonymous actuator request";

    private final RateLimitOperationSource operationSource;
    private final LimiterNaming naming;
    private final RateLimitBackend backend;
    private final RateLimiters rateLimiters;
    private volatile boolean reactive;
    private volatile LeaseCounts leases;

    /** Read operations only: the writes answer 404. */
    public RateLimitsEndpoint(RateLimitOperationSource operationSource, LimiterNaming naming, RateLimitBackend backend) {
        this(operationSource, naming, backend, null);
    }

    /** @param rateLimiters what the writes go to; {@code null} for read operations only */
    public RateLimitsEndpoint(RateLimitOperationSource operationSource, LimiterNaming naming, RateLimitBackend backend,
            RateLimiters rateLimiters) {
        this.operationSource = operationSource;
        this.naming = naming;
        this.backend = backend;
        this.rateLimiters = rateLimiters;
    }

    /** Served by WebFlux, whose all-remaining selector also carries the limit's name: the key is read after it. */
    public void setReactive(boolean reactive) {
        this.reactive = reactive;
    }

    /** What this instance holds of the leased limits ({@code rateLimitLeaseDecorator}); null: nothing is told. */
    public void setLeases(LeaseCounts leases) {
        this.leases = leases;
    }

    /** The key of a {@code /{name}/{key...}} path, or null when the path has none. */
    private String keyOf(String name, String[] path) {
        int from = reactive && path != null && path.length > 0 && path[0].equals(name) ? 1 : 0;
        return path == null || path.length <= from || (path.length == from + 1 && path[from].isEmpty()) ? null
                : String.join("/", java.util.Arrays.copyOfRange(path, from, path.length));
    }

    @ReadOperation
    public LimitsDescriptor limits() {
        return new LimitsDescriptor(operationSource.declaredLimits().operations().stream()
                .sorted(Comparator.comparing(RateLimitOperation::name).thenComparing(RateLimitOperation::method))
                .map(LimitDescriptor::of).toList(), overrides());
    }

    private Map<String, OverrideDescriptor> overrides() {
        Map<String, OverrideDescriptor> overrides = new TreeMap<>();
        if (rateLimiters != null) {
            rateLimiters.overrides().forEach((name, override) -> overrides.put(name, OverrideDescriptor.of(override)));
        }
        return overrides;
    }

    /** @return null (404) when no declared limit has that name */
    @ReadOperation
    public LimitStateDescriptor limit(@Selector String name, @Selector(match = Match.ALL_REMAINING) String[] key) {
        List<RateLimitOperation> operations = operationSource.declaredLimits().named(name);
        if (operations.isEmpty()) {
            return null;
        }
        RateLimitOperation operation = operations.get(0);
        String callerKey = keyOf(name, key);
        List<LimitDescriptor> declared = operations.stream().map(LimitDescriptor::of).toList();
        if (callerKey == null && (operation.key() != null || operation.callerKey() != null)) {
            return new LimitStateDescriptor(declared, null, null, null, null, null, null);
        }
        String logicalKey = callerKey == null ? operation.name()
                : operation.callerKey() == null ? callerKey : operation.callerKey().logicalKey(callerKey);
        LimitState state = rateLimiters != null ? rateLimiters.state(name, callerKey) : declaredState(operation,
                logicalKey);
        String limiterName = naming.limiterName(logicalKey);
        return new LimitStateDescriptor(declared, logicalKey, limiterName, state.available(),
                state.nextPermitIn().toMillis(), state.holders().isEmpty() ? null : state.holders(),
                leaseOf(operation, limiterName));
    }

    /** What this instance holds of the limiter's lease; null for a limit without a lease. */
    private LeaseDescriptor leaseOf(RateLimitOperation operation, String limiterName) {
        LeaseCounts counts = leases;
        if (operation.lease().isZero() || counts == null) {
            return null;
        }
        LeaseCounts.Holding holding = counts.holding(limiterName);
        return holding == null ? new LeaseDescriptor(operation.lease().toString(), 0, null)
                : new LeaseDescriptor(operation.lease().toString(), holding.permits(), holding.endsIn().toMillis());
    }

    /** Without {@link RateLimiters} there are no overrides: the declared limit is the one in force. */
    private LimitState declaredState(RateLimitOperation operation, String logicalKey) {
        return Completions.join(backend.state(naming.limiterName(logicalKey), operation.spec()));
    }

    /**
     * Resets one caller ({@code /{name}/{key}} or {@code /{name}?key=...}), every caller of a limit
     * ({@code /{name}}), or removes the limit's override ({@code /{name}/override}).
     * @return 404 when no declared limit has that name (nor, for {@code override}, an override)
     */
    @DeleteOperation
    public Object reset(@Selector String name, @Selector(match = Match.ALL_REMAINING) String[] path,
            @Nullable String key, SecurityContext securityContext) {
        String pathKey = keyOf(name, path);
        RateLimiters writer = writer(securityContext);
        if (writer == null) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        boolean declared = !operationSource.declaredLimits().named(name).isEmpty();
        if (OVERRIDE_SEGMENT.equals(pathKey) && key == null) {
            if (!declared && !rateLimiters.overrides().containsKey(name)) {
                return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
            }
            boolean removed = writer.clearOverride(name);
            return new OverrideClearedDescriptor(name, removed);
        }
        if (!declared) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        String logicalKey = key != null ? key : pathKey;
        try {
            RateLimiters.ResetResult result = logicalKey == null ? writer.reset(name) : writer.reset(name, logicalKey);
            return new ResetDescriptor(result.name(), result.key(), result.deletedKeys(), result.instancesConfirmed());
        }
        catch (IllegalArgumentException ex) {
            return RefusedWrite.because("key", ex.getMessage()).respond("reset rate limit", name,
                    actor(securityContext));
        }
    }

    /**
     * Overrides the limit called {@code name} on every instance: {@code rate} permits per {@code interval}
     * ({@code 30s}, {@code 1m}, {@code PT1M}), and {@code permits} per call if given. The values are read as text
     * (a JSON number or string) so that a wrong one is answered, like a value out of range, with a problem naming it.
     * @return 404 when no declared limit has that name; 400 with an RFC 9457 problem when a value is refused
     */
    @WriteOperation
    public Object override(@Selector String name, @Nullable String rate, @Nullable String interval,
            @Nullable String permits, SecurityContext securityContext) {
        RateLimiters writer = writer(securityContext);
        List<RateLimitOperation> operations = operationSource.declaredLimits().named(name);
        if (writer == null || operations.isEmpty()) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        try {
            OverrideRequest request = OverrideRequest.of(rate, interval, permits, operations);
            return OverrideDescriptor.of(writer.override(name, request.rate(), request.interval(), request.permits()));
        }
        catch (RefusedWrite refused) {
            return refused.respond("override rate limit", name, actor(securityContext));
        }
        catch (IllegalArgumentException ex) {
            return RefusedWrite.because(null, ex.getMessage()).respond("override rate limit", name,
                    actor(securityContext));
        }
    }

    private static String actor(SecurityContext securityContext) {
        Principal principal = securityContext == null ? null : securityContext.getPrincipal();
        return principal != null ? principal.getName() : ANONYMOUS;
    }

    private RateLimiters writer(SecurityContext securityContext) {
        return rateLimiters == null ? null : rateLimiters.by(actor(securityContext));
    }

    /** The declared limits, and the overrides in force by limit name. */
    public record LimitsDescriptor(List<LimitDescriptor> limits, Map<String, OverrideDescriptor> overrides)
            implements OperationResponseBody {
    }

    /** An override in force: set {@code by} whom {@code at} what time. */
    public record OverrideDescriptor(String name, long rate, String interval, long intervalMillis, Long permits,
            String by, String at) implements OperationResponseBody {

        static OverrideDescriptor of(LimitOverride override) {
            return new OverrideDescriptor(override.name(), override.rate(), override.interval().toString(),
                    override.interval().toMillis(), override.permits(), override.by(), override.at().toString());
        }
    }

    /** What a reset did: {@code key} null for every caller of the limit. */
    public record ResetDescriptor(String name, String key, long deletedKeys, int instancesConfirmed)
            implements OperationResponseBody {
    }

    /** Whether the limit had an override, now removed. */
    public record OverrideClearedDescriptor(String name, boolean removed) implements OperationResponseBody {
    }

    /**
     * A limit and, for one key, its live state.
     * @param limits the declared limits of that name (several methods may share one)
     * @param key the logical key read, or null when the limit needs a key and none was given
     * @param availablePermits permits free now in Redis (this instance's bucket for {@code PER_CLIENT}); the permits
     *        instances hold on leases are not among them
     * @param nextPermitInMillis time until the oldest grant returns its permits
     * @param holders for a limit on calls in flight, the permits each instance holds now ({@code <pid>@<host>}),
     *        most first; null when nobody holds any or for the other algorithms
     * @param lease for a limit with a lease, what the instance that answers holds of it; else null
     */
    public record LimitStateDescriptor(List<LimitDescriptor> limits, String key, String limiterName,
            Long availablePermits, Long nextPermitInMillis, Map<String, Long> holders, LeaseDescriptor lease)
            implements OperationResponseBody {
    }

    /**
     * This instance's lease of one limiter.
     * @param period the limit's lease period
     * @param heldPermits the permits it may still spend from memory (0: it holds none)
     * @param endsInMillis time until it may spend them no more, when the unspent ones go back; null when it holds none
     */
    public record LeaseDescriptor(String period, long heldPermits, Long endsInMillis) {
    }
}
