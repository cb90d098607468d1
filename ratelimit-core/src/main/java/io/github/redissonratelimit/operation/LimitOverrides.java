package io.github.redissonratelimit.operation;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * The {@link LimitOverride}s this instance applies, by limit name: replaced as a whole when they change, read
 * by every limited call (one read of a volatile field and one map lookup per limit, no Redis round trip). The
 * interceptor asks {@link #apply(List)} for the operations of each call; whoever keeps the overrides (e.g.
 * {@code RedissonRateLimiters}, which stores them in Redis) calls {@link #replaceAll(Map)}.
 */
public final class LimitOverrides {

    private static final Log logger = LogFactory.getLog(LimitOverrides.class);

    private volatile Snapshot snapshot = new Snapshot(Map.of());

    /**
     * The operations of one call with the overridden ones replaced: {@code operations} itself when none is
     * overridden. An override under which a method's permits would exceed the rate (a token bucket's burst), or
     * that changes the interval of a calendar quota, is not applied to that method (it keeps its declared limit;
     * logged once).
     */
    public List<RateLimitOperation> apply(List<RateLimitOperation> operations) {
        Snapshot current = snapshot;
        if (current.overrides.isEmpty()) {
            return operations;
        }
        List<RateLimitOperation> applied = null;
        for (int i = 0; i < operations.size(); i++) {
            RateLimitOperation operation = operations.get(i);
            LimitOverride override = current.overrides.get(operation.name());
            if (override == null) {
                continue;
            }
            if (applied == null) {
                applied = new ArrayList<>(operations);
            }
            applied.set(i, current.derived.computeIfAbsent(operation, declared -> derive(declared, override)));
        }
        return applied != null ? applied : operations;
    }

    private static RateLimitOperation derive(RateLimitOperation declared, LimitOverride override) {
        String problem = override.problemWith(declared.spec());
        if (problem != null) {
            logger.warn("Override [" + override + "] of rate limit '" + declared.name() + "' is not applied to "
                    + declared.method() + ": " + problem);
            return declared;
        }
        LimitSpec spec = override.spec(declared.spec());
        long permits = override.permitsOf(declared);
        if (permits > spec.capacity()) {
            logger.warn("Override [" + override + "] of rate limit '" + declared.name() + "' is not applied to "
                    + declared.method() + ": its calls take " + permits + " permits, more than "
                    + (spec.capacity() == spec.rate() ? "the rate" : "the burst (" + spec.capacity() + ")"));
            return declared;
        }
        return declared.withLimit(spec, permits);
    }

    /** The overrides in force, by limit name. */
    public Map<String, LimitOverride> current() {
        return snapshot.overrides;
    }

    /**
     * Puts {@code overrides} in force instead of the current ones.
     * @return the names of the limits whose override was set, changed or removed
     */
    public synchronized Set<String> replaceAll(Map<String, LimitOverride> overrides) {
        Map<String, LimitOverride> before = snapshot.overrides;
        Map<String, LimitOverride> after = Map.copyOf(overrides);
        Set<String> changed = ConcurrentHashMap.newKeySet();
        before.forEach((name, override) -> {
            if (!override.equals(after.get(name))) {
                changed.add(name);
            }
        });
        after.forEach((name, override) -> {
            if (!override.equals(before.get(name))) {
                changed.add(name);
            }
        });
        if (!changed.isEmpty()) {
            snapshot = new Snapshot(after);
        }
        return Set.copyOf(changed);
    }

    /** The overrides and, per declared operation (by identity), the operation that replaces it under them. */
    private record Snapshot(Map<String, LimitOverride> overrides,
            Map<RateLimitOperation, RateLimitOperation> derived) {

        Snapshot(Map<String, LimitOverride> overrides) {
            this(overrides, new ConcurrentHashMap<>());
        }
    }
}
