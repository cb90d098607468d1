package io.github.redissonratelimit.redis.admin;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.redisson.api.RMap;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import io.github.redissonratelimit.admin.RateLimiters;
import io.github.redissonratelimit.log.LogSafe;
import io.github.redissonratelimit.limiter.LimiterMemory;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.operation.LimitOverride;
import io.github.redissonratelimit.operation.LimitOverrides;

/**
 * The overrides in the Redis hash {@code <prefix>%overrides} (field: limit name; the {@code %} keeps it apart from
 * every limiter name, whose escaped keys have {@code %} only before two hex digits), and putting them in force on
 * this instance.
 */
final class StoredOverrides {

    private static final Log logger = LogFactory.getLog(RateLimiters.class);

    private final RedissonClient redisson;
    private final String key;
    private final LimitOverrides inForce;
    private final LimiterMemory memory;

    StoredOverrides(RedissonClient redisson, LimiterNaming naming, LimitOverrides inForce, LimiterMemory memory) {
        this.redisson = redisson;
        this.key = naming.prefix() + "%overrides";
        this.inForce = inForce;
        this.memory = memory;
    }

    /** The Redis hash that keeps the overrides. */
    String key() {
        return key;
    }

    void put(String limit, LimitOverride override) {
        map().fastPut(limit, encode(override));
    }

    /** @return whether the limit had an override */
    boolean remove(String limit) {
        return map().fastRemove(limit) > 0;
    }

    /** @return whether there was any override */
    boolean removeAll() {
        return map().delete();
    }

    /** Reads the overrides from Redis and puts them in force here; forgets local rejections when they changed. */
    CompletionStage<Void> reload() {
        return map().readAllMapAsync().thenAccept(stored -> {
            Map<String, LimitOverride> parsed = new HashMap<>();
            stored.forEach((limit, value) -> {
                try {
                    parsed.put(limit, decode(limit, value));
                }
                catch (RuntimeException ex) {
                    logger.warn("Ignoring the override of rate limit '" + LogSafe.text(limit) + "' stored as '"
                            + LogSafe.text(value) + "' in " + key + ": " + ex.getMessage());
                }
            });
            Set<String> changed = inForce.replaceAll(parsed);
            if (!changed.isEmpty()) {
                // a raised limit makes remembered rejections too pessimistic; the next decisions ask Redis
                memory.forget(limiterName -> true);
                for (String limit : changed) {
                    LimitOverride now = parsed.get(limit);
                    logger.info("Rate limit '" + LogSafe.text(limit) + "' is now " + (now == null
                            ? "as configured (override removed)" : now + " (override set by "
                                    + (now.by() == null ? "application code" : "'" + LogSafe.text(now.by()) + "'") + ")"));
                }
            }
        });
    }

    private RMap<String, String> map() {
        return redisson.getMap(key, StringCodec.INSTANCE);
    }

    /** {@code <rate> <interval ms> <permits or -> <epoch ms> <by, may be empty>}. */
    static String encode(LimitOverride override) {
        return override.rate() + " " + override.interval().toMillis() + " "
                + (override.permits() == null ? "-" : override.permits()) + " " + override.at().toEpochMilli() + " "
                + (override.by() == null ? "" : override.by());
    }

    static LimitOverride decode(String limit, String value) {
        String[] parts = value.split(" ", 5);
        if (parts.length < 4) {
            throw new IllegalArgumentException("expected '<rate> <interval ms> <permits or -> <epoch ms> <by>'");
        }
        String by = parts.length == 5 && !parts[4].isEmpty() ? parts[4] : null;
        return new LimitOverride(limit, Long.parseLong(parts[0]), Duration.ofMillis(Long.parseLong(parts[1])),
                parts[2].equals("-") ? null : Long.valueOf(parts[2]), by, Instant.ofEpochMilli(Long.parseLong(parts[3])));
    }
}
