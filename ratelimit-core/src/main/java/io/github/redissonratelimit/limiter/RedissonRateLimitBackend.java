package io.github.redissonratelimit.limiter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.redisson.api.RMap;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RScript;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.api.ratelimiter.RateLimiterArgs;
import org.redisson.client.codec.LongCodec;
import org.redisson.client.codec.StringCodec;

import io.github.redissonratelimit.annotation.RateLimitMode;

/**
 * A {@link RateLimitBackend} on Redisson's {@link RRateLimiter}.
 *
 * <p>Steady state costs one Redis round trip per allowed decision. The first time this JVM sees a
 * limiter name it writes the config if absent ({@code trySetRate}, with the key TTL as keep-alive);
 * when a config was already there it reads it once and, if it differs from the declared one, applies
 * the {@link ConfigChangePolicy}. The same happens again when Redis reports the limiter as not
 * initialized (its keys expired or were deleted). A rejection costs one more script call, to learn when
 * the permits come back; it also repairs a free permits counter that was lost and re-created too high
 * (see {@code docs/operations.md}).
 *
 * <p>The asynchronous operations send the same commands without blocking: their results complete on
 * Redisson's event loop threads.
 */
public final class RedissonRateLimitBackend implements RateLimitBackend {

    static final String NOT_INITIALIZED = "RateLimiter is not initialized";

    /*
     * RRateLimiter's acquire script fails this way when its counter is below the request and its grants
     * ZSET is gone (evicted or deleted): it reads the oldest grant's score to answer the wait, and there
     * is none. It would fail on every call until the keys expire; the rejection script repairs it.
     */
    static final String GRANTS_LOST = "attempt to perform arithmetic on a nil value";

    /*
     * Runs on a rejection. First it checks RRateLimiter's invariant, free permits + permits held by the
     * grants in the ZSET = rate, and repairs the counter when the state was partly lost (failover to a
     * replica that missed writes, eviction, DEL):
     * - the counter was lost: RRateLimiter re-creates it full although the grants are still there, and
     *   under steady demand its own correction never fires, so twice the rate would be granted from then
     *   on; a counter found too high is set back to rate - held (possibly negative);
     * - the grants were lost: with an empty ZSET the counter must be the full rate.
     * The cheap tests (ZCARD <= held, as every grant holds at least one permit) keep the recount off the
     * normal path. Then it walks the grants (oldest first) until the permits they will return, added to
     * the free ones, cover the request, and answers the milliseconds until that grant leaves the window.
     * The member layout (struct 'Bc0I': id length, id, permits) is the one RRateLimiter writes. Rate and
     * interval are the stored ones (the declared ones only when the config is gone): with
     * on-config-change=keep they can differ, and RRateLimiter frees grants by the stored interval.
     */
    private static final String RETRY_AFTER_SCRIPT = """
            local interval = tonumber(redis.call('hget', KEYS[3], 'interval') or ARGV[3])
            local rate = tonumber(redis.call('hget', KEYS[3], 'rate') or ARGV[4])
            local free = tonumber(redis.call('get', KEYS[1]) or rate)
            local needed = tonumber(ARGV[1])
            local grantCount = redis.call('zcard', KEYS[2])
            if free + grantCount > rate or (grantCount == 0 and free < rate) then
              local held = 0
              for _, member in ipairs(redis.call('zrange', KEYS[2], 0, -1)) do
                local _, permits = struct.unpack('Bc0I', member)
                held = held + permits
              end
              if free + held > rate or (held == 0 and free < rate) then
                free = rate - held
                redis.call('set', KEYS[1], free, 'KEEPTTL')
              end
            end
            if free >= needed then return 0 end
            local grants = redis.call('zrange', KEYS[2], 0, needed - free - 1, 'withscores')
            for i = 1, #grants, 2 do
              local _, permits = struct.unpack('Bc0I', grants[i])
              free = free + permits
              if free >= needed then
                return tonumber(grants[i + 1]) + interval - tonumber(ARGV[2])
              end
            end
            return interval
            """;

    /*
     * Gives back the permits of one unused grant: removes the newest grant of exactly that many permits
     * from the window and adds them to the free ones (capped at the rate). RRateLimiter.release only adds
     * them to the free ones and leaves the grant in the window, so that grant returns its permits a
     * second time when it expires and the limiter then admits more than its rate (see docs/limits.md).
     * Removing the newest matching grant rather than the caller's own (whose id Redisson does not expose)
     * changes nothing but which of two equal grants expires first. A grant already expired was given
     * back by RRateLimiter itself: then nothing is added. INCRBY and KEEPTTL keep the keys' TTL.
     */
    private static final String REFUND_SCRIPT = """
            local wanted = tonumber(ARGV[1])
            local offset = 0
            while true do
              local grants = redis.call('zrevrange', KEYS[2], offset, offset + 63)
              if #grants == 0 then return 0 end
              for i = 1, #grants do
                local _, permits = struct.unpack('Bc0I', grants[i])
                if permits == wanted then
                  redis.call('zrem', KEYS[2], grants[i])
                  if redis.call('exists', KEYS[1]) == 1 then
                    local free = redis.call('incrby', KEYS[1], wanted)
                    if free > tonumber(ARGV[2]) then
                      redis.call('set', KEYS[1], ARGV[2], 'keepttl')
                    end
                  end
                  return 1
                end
              end
              offset = offset + 64
            end
            """;

    /*
     * Reads the free permits as the next acquire would see them (free plus the permits of expired grants,
     * recounted from the live grants when that exceeds the rate) and the milliseconds until the oldest
     * live grant expires. Writes nothing.
     */
    private static final String STATE_SCRIPT = """
            local rate = tonumber(ARGV[2])
            local value = redis.call('get', KEYS[1])
            if value == false then return {rate, 0} end
            local free = tonumber(value)
            local expired = redis.call('zrangebyscore', KEYS[2], 0, ARGV[1])
            for i = 1, #expired do
              local _, permits = struct.unpack('Bc0I', expired[i])
              free = free + permits
            end
            if free > rate then
              local used = 0
              for _, grant in ipairs(redis.call('zrangebyscore', KEYS[2], '(' .. ARGV[1], '+inf')) do
                local _, permits = struct.unpack('Bc0I', grant)
                used = used + permits
              end
              free = rate - used
            end
            local oldest = redis.call('zrangebyscore', KEYS[2], '(' .. ARGV[1], '+inf', 'withscores', 'limit', 0, 1)
            local next = 0
            if #oldest > 0 then next = tonumber(oldest[2]) - tonumber(ARGV[1]) end
            return {free, next}
            """;

    private static final Log logger = LogFactory.getLog(RedissonRateLimitBackend.class);

    private final RedissonClient redisson;
    private final BackendOptions options;
    private final Cache<String, Boolean> initialized;
    private final Set<String> reportedChanges = ConcurrentHashMap.newKeySet();

    public RedissonRateLimitBackend(RedissonClient redisson) {
        this(redisson, BackendOptions.DEFAULTS);
    }

    public RedissonRateLimitBackend(RedissonClient redisson, BackendOptions options) {
        this.redisson = redisson;
        this.options = options;
        this.initialized = Caffeine.newBuilder().maximumSize(options.knownLimiters()).build();
    }

    /** {@link #tryAcquireAsync}, waited for: one code path for both. */
    @Override
    public Decision tryAcquire(String limiterName, LimitSpec spec, long permits) {
        return await(tryAcquireAsync(limiterName, spec, permits));
    }

    /**
     * Takes the permits without blocking. Cancelling the returned future
     * cancels the Redis command in flight, so that a command Redisson still retries after the caller
     * gave up is not sent once Redis is back.
     */
    @Override
    public CompletableFuture<Decision> tryAcquireAsync(String limiterName, LimitSpec spec, long permits) {
        CancellableChain<Decision> chain = new CancellableChain<>();
        RRateLimiter limiter = redisson.getRateLimiter(limiterName);
        CompletionStage<Void> ready = initialized.getIfPresent(limiterName) == null
                ? initializeAsync(limiterName, limiter, spec, chain) : CompletableFuture.completedFuture(null);
        ready.thenCompose(none -> chain.step(limiter.tryAcquireAsync(permits)))
                .handle((allowed, ex) -> {
                    if (ex == null) {
                        return CompletableFuture.completedFuture(allowed);
                    }
                    if (isGrantsLost(ex)) {
                        return retryAfterAsync(limiterName, spec, permits, chain)
                                .thenCompose(repaired -> chain.step(limiter.tryAcquireAsync(permits)));
                    }
                    if (isNotInitialized(ex)) {
                        return initializeAsync(limiterName, limiter, spec, chain)
                                .thenCompose(none -> chain.step(limiter.tryAcquireAsync(permits)));
                    }
                    return CompletableFuture.<Boolean>failedFuture(unwrap(ex));
                })
                .thenCompose(acquired -> acquired)
                .thenCompose(allowed -> allowed ? CompletableFuture.completedFuture(Decision.allow())
                        : retryAfterAsync(limiterName, spec, permits, chain).thenApply(Decision::reject))
                .whenComplete(chain::complete);
        return chain.result();
    }

    /**
     * Writes the config if absent; when one existed and differs from the declared one, reconciles it off
     * Redisson's threads (reconciling blocks).
     */
    private CompletionStage<Void> initializeAsync(String limiterName, RRateLimiter limiter, LimitSpec spec,
            CancellableChain<?> chain) {
        Duration keepAlive = options.keepAlive(spec.interval());
        StoredConfig declared = new StoredConfig(spec.rate(), spec.interval().toMillis(), rateType(spec.mode()),
                keepAlive.toMillis());
        return chain.step(limiter.trySetRateAsync(rateType(spec.mode()), spec.rate(), spec.interval(), keepAlive))
                .thenCompose(created -> created ? CompletableFuture.<Void>completedFuture(null)
                        : chain.step(redisson.<String, String>getMap(limiterName, StringCodec.INSTANCE).readAllMapAsync())
                                .thenCompose(hash -> declared.equals(StoredConfig.parse(hash))
                                        ? CompletableFuture.<Void>completedFuture(null)
                                        : CompletableFuture.runAsync(() -> reconcile(limiterName, limiter, spec, keepAlive))))
                .thenRun(() -> initialized.put(limiterName, Boolean.TRUE));
    }

    private CompletionStage<Duration> retryAfterAsync(String limiterName, LimitSpec spec, long permits,
            CancellableChain<?> chain) {
        return chain.step(redisson.getScript(LongCodec.INSTANCE).<Long>evalAsync(limiterName,
                RScript.Mode.READ_WRITE, RETRY_AFTER_SCRIPT, RScript.ReturnType.LONG, retryAfterKeys(limiterName, spec),
                permits, System.currentTimeMillis(), spec.interval().toMillis(), spec.rate()))
                .thenApply(millis -> Duration.ofMillis(millis == null ? spec.interval().toMillis() : Math.max(0, millis)));
    }

    /** {@link #stateKeys} plus the config hash, whose stored rate and interval the script reads. */
    private List<Object> retryAfterKeys(String limiterName, LimitSpec spec) {
        List<Object> keys = new ArrayList<>(stateKeys(limiterName, spec));
        keys.add(limiterName);
        return keys;
    }

    /** Gives back an unused grant; see {@code REFUND_SCRIPT} for why not {@code RRateLimiter.release}. */
    @Override
    public void release(String limiterName, LimitSpec spec, long permits) {
        await(releaseAsync(limiterName, spec, permits));
    }

    @Override
    public CompletionStage<Void> releaseAsync(String limiterName, LimitSpec spec, long permits) {
        return redisson.getScript(LongCodec.INSTANCE).<Long>evalAsync(limiterName, RScript.Mode.READ_WRITE,
                REFUND_SCRIPT, RScript.ReturnType.LONG, stateKeys(limiterName, spec), permits, spec.rate())
                .thenApply(refunded -> null);
    }

    @Override
    public LimitState state(String limiterName, LimitSpec spec) {
        return await(stateAsync(limiterName, spec));
    }

    @Override
    public CompletionStage<LimitState> stateAsync(String limiterName, LimitSpec spec) {
        long now = System.currentTimeMillis();
        return redisson.getScript(LongCodec.INSTANCE).<List<Long>>evalAsync(limiterName, RScript.Mode.READ_ONLY,
                STATE_SCRIPT, RScript.ReturnType.LIST, stateKeys(limiterName, spec),
                now - spec.interval().toMillis(), spec.rate()).thenApply(RedissonRateLimitBackend::toState);
    }

    private static LimitState toState(List<Long> reply) {
        return new LimitState(reply.get(0), Duration.ofMillis(reply.get(1)));
    }

    /** The {@code :value} and {@code :permits} keys this client uses for the limiter. */
    private List<Object> stateKeys(String limiterName, LimitSpec spec) {
        String suffix = spec.mode() == RateLimitMode.PER_CLIENT ? ":" + redisson.getId() : "";
        return List.of(LimiterKeys.value(limiterName) + suffix, LimiterKeys.permits(limiterName) + suffix);
    }

    private static Throwable unwrap(Throwable ex) {
        return ex instanceof CompletionException && ex.getCause() != null ? ex.getCause() : ex;
    }

    /** The caller's future, and the Redis command it currently waits for (cancelled with it). */
    private static final class CancellableChain<T> {

        private final CompletableFuture<T> result = new CompletableFuture<>();
        private volatile Future<?> current;

        CancellableChain() {
            result.whenComplete((value, ex) -> {
                Future<?> inFlight = current;
                if (result.isCancelled() && inFlight != null) {
                    inFlight.cancel(false);
                }
            });
        }

        <R> CompletionStage<R> step(CompletionStage<R> command) {
            current = command.toCompletableFuture();
            if (result.isCancelled()) {
                current.cancel(false);
            }
            return command;
        }

        void complete(T value, Throwable ex) {
            if (ex == null) {
                result.complete(value);
            }
            else {
                result.completeExceptionally(unwrap(ex));
            }
        }

        CompletableFuture<T> result() {
            return result;
        }
    }

    /** The limiter existed: make its stored config match the declared one as the policy says. */
    private void reconcile(String limiterName, RRateLimiter limiter, LimitSpec spec, Duration keepAlive) {
        RMap<String, String> hash = redisson.getMap(limiterName, StringCodec.INSTANCE);
        StoredConfig stored = StoredConfig.parse(hash.readAllMap());
        StoredConfig declared = new StoredConfig(spec.rate(), spec.interval().toMillis(), rateType(spec.mode()),
                keepAlive.toMillis());
        if (stored == null) {
            limiter.trySetRate(rateType(spec.mode()), spec.rate(), spec.interval(), keepAlive);
            return;
        }
        if (stored.equals(declared)) {
            return;
        }
        RateLimiterArgs args = RateLimiterArgs.of(declared.type(), spec.rate(), spec.interval()).keepAliveTime(keepAlive);
        ConfigChangePolicy policy = options.onConfigChange();
        switch (policy) {
            case UPDATE -> {
                if (!limiter.updateRate(args.keepState(true))) {
                    limiter.trySetRate(rateType(spec.mode()), spec.rate(), spec.interval(), keepAlive);
                }
            }
            case RESET -> limiter.setRate(args);
            case KEEP -> {
                // trySetRate semantics: what Redis has wins
            }
        }
        report(limiterName, stored, declared, policy);
    }

    /** Logs a config change at INFO (WARN for KEEP) once per distinct change, then at DEBUG per limiter. */
    private void report(String limiterName, StoredConfig stored, StoredConfig declared, ConfigChangePolicy policy) {
        String message = switch (policy) {
            case UPDATE -> "Updated rate limiter '" + limiterName + "' from [" + stored + "] to [" + declared
                    + "], keeping the grants of the current window (ratelimit.on-config-change=update)";
            case RESET -> "Reset rate limiter '" + limiterName + "' from [" + stored + "] to [" + declared
                    + "] with a full bucket (ratelimit.on-config-change=reset)";
            case KEEP -> "Rate limiter '" + limiterName + "' keeps its stored config [" + stored
                    + "] although [" + declared + "] is declared (ratelimit.on-config-change=keep); set "
                    + "ratelimit.on-config-change=update or reset to apply the declared one";
        };
        boolean first = reportedChanges.size() < 1_000 && reportedChanges.add(stored + "->" + declared);
        if (first && policy == ConfigChangePolicy.KEEP) {
            logger.warn(message + " (further limiters with the same change are logged at DEBUG)");
        }
        else if (first) {
            logger.info(message + " (further limiters with the same change are logged at DEBUG)");
        }
        else if (logger.isDebugEnabled()) {
            logger.debug(message);
        }
    }

    /** Waits for a Redis answer the way Redisson's blocking methods do: its exception, unwrapped. */
    private static <T> T await(CompletionStage<T> stage) {
        CompletableFuture<T> future = stage.toCompletableFuture();
        try {
            return future.get();
        }
        catch (InterruptedException ex) {
            future.cancel(false);
            Thread.currentThread().interrupt();
            throw new RedisException("Interrupted while waiting for Redis", ex);
        }
        catch (ExecutionException ex) {
            Throwable cause = unwrap(ex.getCause());
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new RedisException(cause.getMessage(), cause);
        }
    }

    static boolean isGrantsLost(Throwable ex) {
        return causeMentions(ex, GRANTS_LOST);
    }

    static RateType rateType(RateLimitMode mode) {
        return mode == RateLimitMode.PER_CLIENT ? RateType.PER_CLIENT : RateType.OVERALL;
    }

    static boolean isNotInitialized(Throwable ex) {
        return causeMentions(ex, NOT_INITIALIZED);
    }

    /** Whether {@code ex} or one of its causes carries {@code text}: how Lua errors reach us from Redis. */
    private static boolean causeMentions(Throwable ex, String text) {
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            if (cause.getMessage() != null && cause.getMessage().contains(text)) {
                return true;
            }
        }
        return false;
    }
}
