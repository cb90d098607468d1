package io.github.redissonratelimit.redis.admin;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.admin.RateLimiters;
import io.github.redissonratelimit.log.LogSafe;
import io.github.redissonratelimit.limiter.Completions;
import io.github.redissonratelimit.limiter.LimiterMemories;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.local.LocalFallback;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.operation.CallerKey;
import io.github.redissonratelimit.operation.DeclaredRateLimits;
import io.github.redissonratelimit.operation.LimitOverride;
import io.github.redissonratelimit.operation.LimitOverrides;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.redis.BackendOptions;
import io.github.redissonratelimit.redis.ConfigChangePolicy;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;

/**
 * {@link RateLimiters} on Redis, for the limiters of one {@link LimiterNaming}.
 *
 * <ul>
 * <li>Resets delete keys: one limiter's directly (its keys share a hash slot), a limit's or every limiter's found
 * with {@code SCAN} on every master (Redisson's key iteration) and deleted in batches of single-key {@code DEL}s,
 * which Redisson sends to each key's node, so they work on a cluster.</li>
 * <li>Overrides live in the hash {@code <prefix>%overrides} (field: limit name; the {@code %} keeps it apart from
 * every limiter name, whose escaped keys have {@code %} only before two hex digits), which each instance reads
 * when it {@link #start()}s and again whenever told.</li>
 * <li>Every write is told to every instance on the topic {@code <prefix>%events}: each drops what it remembers
 * of the limiters concerned (the local rejection cache, and which limiters the backend compared with their stored
 * config) or re-reads the overrides, then confirms on the same topic. A write returns once every instance that
 * received it has confirmed, or after one second.</li>
 * </ul>
 *
 * <p>What each instance remembers of limiters is forgotten through its {@link LimiterMemories}, with which every
 * in-memory store registers (the local rejection cache, the checked configs of {@link RedissonRateLimitBackend}, the
 * local outage policy's grants).
 */
public final class RedissonRateLimiters implements RateLimiters {

    private static final Log logger = LogFactory.getLog(RateLimiters.class);

    private final LimiterNaming naming;
    private final Supplier<DeclaredRateLimits> declared;
    private final LimitOverrides inForce;
    private final Supplier<? extends RateLimitBackend> backend;
    private final LimiterMemories memory;
    private final StoredOverrides stored;
    private final LimitEvents events;
    private final LimiterResets resets;
    private final String actor;
    private volatile ConfigChangePolicy onConfigChange = BackendOptions.DEFAULTS.onConfigChange();

    /**
     * @param declared the declared limits (read at each call: they are complete once the context has started)
     * @param overrides the overrides the interceptor applies, which this keeps as Redis says
     * @param backend this instance's backend, which reads the permits left
     * @param memories what this instance remembers of limiters, forgotten with the limiters a reset deletes or an
     * override changes
     */
    public RedissonRateLimiters(RedissonClient redisson, LimiterNaming naming, Supplier<DeclaredRateLimits> declared,
            LimitOverrides overrides, Supplier<? extends RateLimitBackend> backend, LimiterMemories memories) {
        Objects.requireNonNull(redisson, "redisson");
        this.naming = Objects.requireNonNull(naming, "naming");
        this.declared = Objects.requireNonNull(declared, "declared");
        this.inForce = Objects.requireNonNull(overrides, "overrides");
        this.backend = Objects.requireNonNull(backend, "backend");
        this.memory = Objects.requireNonNull(memories, "memories");
        this.stored = new StoredOverrides(redisson, naming, overrides, memory);
        this.events = new LimitEvents(redisson, naming, memory, stored);
        this.resets = new LimiterResets(redisson, naming, declared, stored.key(), events);
        this.actor = null;
    }

    private RedissonRateLimiters(RedissonRateLimiters shared, String actor) {
        this.naming = shared.naming;
        this.declared = shared.declared;
        this.inForce = shared.inForce;
        this.backend = shared.backend;
        this.memory = shared.memory;
        this.stored = shared.stored;
        this.events = shared.events;
        this.resets = shared.resets;
        this.actor = actor;
        this.onConfigChange = shared.onConfigChange;
    }

    /**
     * What limiters that exist do when their limit changes ({@code ratelimit.on-config-change}); under
     * {@code KEEP} an override warns that they keep their stored config. {@code UPDATE} unless set.
     */
    public void setOnConfigChange(ConfigChangePolicy onConfigChange) {
        this.onConfigChange = Objects.requireNonNull(onConfigChange, "onConfigChange");
    }

    /**
     * Subscribes to the events of other instances, then reads the overrides stored in Redis. A Redis that does not
     * answer is logged, not thrown: the declared limits apply until the next event.
     */
    public void start() {
        try {
            events.subscribe();
            stored.reload().toCompletableFuture().join();
        }
        catch (RuntimeException ex) {
            logger.warn("Could not subscribe to " + events.channel() + " or read the rate limit overrides from "
                    + stored.key() + "; the declared limits apply, and resets and overrides made on other "
                    + "instances do not reach this one (" + ex + ")");
            logger.debug("Subscribing to rate limit events failed", ex);
        }
    }

    /** Stops listening to other instances. */
    public void stop() {
        events.unsubscribe();
    }

    @Override
    public RateLimiters by(String actor) {
        return new RedissonRateLimiters(this, actor);
    }

    @Override
    public LimitState state(String name, String key) {
        List<RateLimitOperation> operations = inForce.apply(named(name));
        String limiterName = naming.limiterName(logicalKey(operations.get(0), key));
        return Completions.join(backend.get().state(limiterName, operations.get(0).spec()));
    }

    @Override
    public ResetResult reset(String name, String key) {
        List<RateLimitOperation> operations = named(name);
        return resets.resetCaller(operations, logicalKey(operations.get(0), key), who());
    }

    @Override
    public ResetResult reset(String name) {
        return resets.resetLimit(named(name), who());
    }

    @Override
    public ResetResult resetAll() {
        return resets.resetAll(who());
    }

    @Override
    public LimitOverride override(String name, long rate, Duration interval, Long permits) {
        List<RateLimitOperation> operations = named(name);
        String limit = operations.get(0).name();
        LimitOverride override = new LimitOverride(limit, rate, interval, permits, actor, Instant.now());
        for (RateLimitOperation operation : operations) {
            String problem = override.problemWith(operation.spec());
            if (problem != null) {
                throw new IllegalArgumentException(problem);
            }
            long capacity = override.spec(operation.spec()).capacity();
            if (override.permitsOf(operation) > capacity) {
                throw new IllegalArgumentException("A " + (capacity == rate ? "rate" : "burst") + " of " + capacity
                        + " is below the " + operation.permits() + " permits each call of " + operation.method()
                        + " takes: give permits too, or a higher rate");
            }
        }
        LimitOverride before = inForce.current().get(limit);
        stored.put(limit, override);
        stored.reload().toCompletableFuture().join();
        int confirmed = events.broadcast(LimitEvents.OVERRIDES, List.of());
        logger.info("Overrode rate limit '" + limit + "': " + (before != null ? before : operations.get(0).spec()
                + (operations.get(0).permits() == 1 ? "" : ", " + operations.get(0).permits() + " permit(s) a call"))
                + " -> " + override + " (" + confirmed + " instance(s) confirmed) by " + who() + keepWarning());
        return override;
    }

    @Override
    public boolean clearOverride(String name) {
        List<RateLimitOperation> operations = declared.get().named(name);
        String limit = operations.isEmpty() ? name : operations.get(0).name();
        LimitOverride before = inForce.current().get(limit);
        boolean removed = stored.remove(limit);
        stored.reload().toCompletableFuture().join();
        if (removed) {
            int confirmed = events.broadcast(LimitEvents.OVERRIDES, List.of());
            logger.info("Removed the override " + (before != null ? "[" + before + "] " : "") + "of rate limit '"
                    + LogSafe.text(limit) + "', back to " + (operations.isEmpty() ? "its configuration"
                            : operations.get(0).spec()) + " (" + confirmed + " instance(s) confirmed) by " + who());
        }
        return removed;
    }

    @Override
    public void clearOverrides() {
        boolean removed = stored.removeAll();
        stored.reload().toCompletableFuture().join();
        if (removed) {
            int confirmed = events.broadcast(LimitEvents.OVERRIDES, List.of());
            logger.info("Removed every rate limit override (" + confirmed + " instance(s) confirmed) by " + who());
        }
    }

    @Override
    public Map<String, LimitOverride> overrides() {
        return inForce.current();
    }

    /** The Redis hash that keeps the overrides. */
    public String overridesKey() {
        return stored.key();
    }

    private String who() {
        return actor != null ? "'" + LogSafe.text(actor) + "'" : "application code (no principal)";
    }

    private String keepWarning() {
        return onConfigChange == ConfigChangePolicy.KEEP
                ? "; ratelimit.on-config-change=keep: limiters that exist keep their stored config, only new ones "
                        + "get the override"
                : "";
    }

    private List<RateLimitOperation> named(String name) {
        Objects.requireNonNull(name, "name");
        List<RateLimitOperation> operations = declared.get().named(name);
        if (operations.isEmpty()) {
            throw new IllegalArgumentException("No rate limit is named '" + LogSafe.text(name) + "'");
        }
        return operations;
    }

    /** The logical key of {@code key} under the limit: a route's key has the route's beginning put before it. */
    private static String logicalKey(RateLimitOperation operation, String key) {
        CallerKey callerKey = operation.callerKey();
        if (key != null && !key.isEmpty()) {
            return callerKey == null ? key : callerKey.logicalKey(key);
        }
        if (operation.key() != null || callerKey != null) {
            throw new IllegalArgumentException("Rate limit '" + operation.name() + "' has a key per call ("
                    + (callerKey == null ? operation.key().source() : callerKey.source()) + "): give the key");
        }
        return operation.name();
    }

    static String literalPrefix(String expression) {
        return LimiterResets.literalPrefix(expression);
    }

    static String encode(LimitOverride override) {
        return StoredOverrides.encode(override);
    }

    static LimitOverride decode(String limit, String value) {
        return StoredOverrides.decode(limit, value);
    }
}
