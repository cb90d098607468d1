package io.github.redissonratelimit.limiter;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.redisson.api.RMap;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RScript;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.api.ratelimiter.RateLimiterArgs;
import org.redisson.client.RedisException;
import org.redisson.client.codec.LongCodec;
import org.redisson.client.codec.StringCodec;

import io.github.redissonratelimit.annotation.RateLimitMode;

/**
 * A {@link RateLimitBackend} on Redisson's {@link RRateLimiter}: its config is written and changed with
 * RRateLimiter's own operations, and decisions run {@link AcquireScript} on RRateLimiter's keys.
 *
 * <p>Steady state costs one script call per decision, allowed or rejected (a rejection comes with the
 * time until the permits can be free); concurrent decisions share pipelines ({@link AcquirePipeline}).
 * The first time this JVM sees a limiter name it writes the config if absent ({@code trySetRate}, with
 * the key TTL as keep-alive); when a config was already there it reads it once and, if it differs from
 * the declared one, applies the {@link ConfigChangePolicy}. The same happens again when Redis reports the
 * limiter as not initialized (its keys expired or were deleted).
 *
 * <p>The asynchronous operations send the same commands without blocking: their results complete on
 * Redisson's event loop threads.
 */
public final class RedissonRateLimitBackend implements RateLimitBackend {

    static final String NOT_INITIALIZED = "RateLimiter is not initialized";

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
    private final AcquirePipeline pipeline;
    private final Set<String> reportedChanges = ConcurrentHashMap.newKeySet();

    public RedissonRateLimitBackend(RedissonClient redisson) {
        this(redisson, BackendOptions.DEFAULTS);
    }

    public RedissonRateLimitBackend(RedissonClient redisson, BackendOptions options) {
        this.redisson = redisson;
        this.options = options;
        this.initialized = Caffeine.newBuilder().maximumSize(options.knownLimiters()).build();
        this.pipeline = new AcquirePipeline(redisson, new AcquireScript(redisson.getId()), options.pipelineInFlight(),
                options.pipelineBatchSize());
    }

    public BackendOptions getOptions() {
        return options;
    }

    /** {@link #tryAcquireAsync}, waited for: one code path for both. */
    @Override
    public Decision tryAcquire(String limiterName, LimitSpec spec, long permits) {
        return await(tryAcquireAsync(limiterName, spec, permits));
    }

    /**
     * Takes the permits without blocking. Cancelling the returned future cancels the Redis command it waits
     * for: a decision still queued for a pipeline is never sent, and Redisson stops retrying a sent one where
     * it links cancellation to its retries. Redisson 4.7 does not for script calls while its script cache is
     * on (its default): such a call may still reach Redis once Redis is back (see {@code docs/operations.md}).
     */
    @Override
    public CompletableFuture<Decision> tryAcquireAsync(String limiterName, LimitSpec spec, long permits) {
        CancellableChain<Decision> chain = new CancellableChain<>();
        CompletionStage<Long> attempt = initialized.getIfPresent(limiterName) != null
                ? chain.step(pipeline.acquire(limiterName, permits))
                : initializeThenAcquire(limiterName, spec, permits, chain);
        attempt.whenComplete((waitMillis, ex) -> {
            if (ex != null && isNotInitialized(ex)) {
                initializeThenAcquire(limiterName, spec, permits, chain)
                        .whenComplete((retried, retryEx) -> complete(chain, retried, retryEx));
            }
            else {
                complete(chain, waitMillis, ex);
            }
        });
        return chain.result();
    }

    private CompletionStage<Long> initializeThenAcquire(String limiterName, LimitSpec spec, long permits,
            CancellableChain<Decision> chain) {
        return initializeAsync(limiterName, spec, chain).thenCompose(none -> chain.step(pipeline.acquire(limiterName, permits)));
    }

    /** The acquire script answers 0 when it granted, else the milliseconds until the permits can be free. */
    private static void complete(CancellableChain<Decision> chain, Long waitMillis, Throwable ex) {
        if (ex != null) {
            chain.complete(null, ex);
        }
        else {
            chain.complete(waitMillis == 0 ? Decision.allow() : Decision.reject(Duration.ofMillis(waitMillis)), null);
        }
    }

    /**
     * Writes the config if absent; when one existed and differs from the declared one, reconciles it off
     * Redisson's threads (reconciling blocks).
     */
    private CompletionStage<Void> initializeAsync(String limiterName, LimitSpec spec, CancellableChain<?> chain) {
        RRateLimiter limiter = redisson.getRateLimiter(limiterName);
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
        String value = LimiterKeys.value(limiterName);
        String permits = LimiterKeys.permits(limiterName);
        return spec.mode() == RateLimitMode.PER_CLIENT
                ? List.of(LimiterKeys.ofClient(value, redisson.getId()), LimiterKeys.ofClient(permits, redisson.getId()))
                : List.of(value, permits);
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
