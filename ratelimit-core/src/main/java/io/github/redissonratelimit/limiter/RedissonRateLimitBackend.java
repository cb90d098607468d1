package io.github.redissonratelimit.limiter;

import java.time.Duration;
import java.util.List;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RScript;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.LongCodec;

import io.github.redissonratelimit.annotation.RateLimitMode;

/**
 * A {@link RateLimitBackend} on Redisson's {@link RRateLimiter}.
 *
 * <p>Steady state costs one Redis round trip per allowed decision: the limiter's config is written
 * ({@code trySetRate}) only the first time this JVM sees a limiter name, and again when Redis
 * reports the limiter as not initialized (its keys expired or were deleted). A rejection costs one
 * more read, to learn when the permits come back.
 */
public final class RedissonRateLimitBackend implements RateLimitBackend {

    static final String NOT_INITIALIZED = "RateLimiter is not initialized";

    /*
     * Walks the grants (oldest first) until the permits they will return, added to the free ones,
     * cover the request; answers the milliseconds until that grant leaves the window. The member
     * layout (struct 'Bc0I': id length, id, permits) is the one RRateLimiter writes.
     */
    private static final String RETRY_AFTER_SCRIPT = """
            local free = tonumber(redis.call('get', KEYS[1]) or ARGV[4])
            local needed = tonumber(ARGV[1])
            if free >= needed then return 0 end
            local grants = redis.call('zrange', KEYS[2], 0, needed - 1, 'withscores')
            for i = 1, #grants, 2 do
              local _, permits = struct.unpack('Bc0I', grants[i])
              free = free + permits
              if free >= needed then
                return tonumber(grants[i + 1]) + tonumber(ARGV[3]) - tonumber(ARGV[2])
              end
            end
            return tonumber(ARGV[3])
            """;

    private final RedissonClient redisson;
    private final Cache<String, Boolean> initialized;

    public RedissonRateLimitBackend(RedissonClient redisson) {
        this(redisson, 100_000);
    }

    /**
     * @param knownLimiters how many limiter names this JVM remembers as initialized; past it, the
     * least recently used are forgotten and re-checked (one extra write) on their next use
     */
    public RedissonRateLimitBackend(RedissonClient redisson, long knownLimiters) {
        this.redisson = redisson;
        this.initialized = Caffeine.newBuilder().maximumSize(knownLimiters).build();
    }

    @Override
    public Decision tryAcquire(String limiterName, LimitSpec spec, long permits) {
        RRateLimiter limiter = redisson.getRateLimiter(limiterName);
        if (initialized.getIfPresent(limiterName) == null) {
            initialize(limiterName, limiter, spec);
        }
        boolean allowed;
        try {
            allowed = limiter.tryAcquire(permits);
        }
        catch (RedisException ex) {
            if (!isNotInitialized(ex)) {
                throw ex;
            }
            initialize(limiterName, limiter, spec);
            allowed = limiter.tryAcquire(permits);
        }
        return allowed ? Decision.allow() : Decision.reject(retryAfter(limiterName, spec, permits));
    }

    private void initialize(String limiterName, RRateLimiter limiter, LimitSpec spec) {
        limiter.trySetRate(rateType(spec.mode()), spec.rate(), spec.interval());
        initialized.put(limiterName, Boolean.TRUE);
    }

    private Duration retryAfter(String limiterName, LimitSpec spec, long permits) {
        String suffix = spec.mode() == RateLimitMode.PER_CLIENT ? ":" + redisson.getId() : "";
        List<Object> keys = List.of(
                LimiterKeys.value(limiterName) + suffix,
                LimiterKeys.permits(limiterName) + suffix);
        Long millis = redisson.getScript(LongCodec.INSTANCE).eval(limiterName, RScript.Mode.READ_WRITE,
                RETRY_AFTER_SCRIPT, RScript.ReturnType.LONG, keys,
                permits, System.currentTimeMillis(), spec.interval().toMillis(), spec.rate());
        return Duration.ofMillis(millis == null ? spec.interval().toMillis() : Math.max(0, millis));
    }

    static RateType rateType(RateLimitMode mode) {
        return mode == RateLimitMode.PER_CLIENT ? RateType.PER_CLIENT : RateType.OVERALL;
    }

    static boolean isNotInitialized(Throwable ex) {
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            if (cause.getMessage() != null && cause.getMessage().contains(NOT_INITIALIZED)) {
                return true;
            }
        }
        return false;
    }
}
