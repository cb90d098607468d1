package io.github.redissonratelimit.limiter;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one script a decision runs: takes permits from a limiter kept in RRateLimiter's layout, or answers
 * when they can be free.
 *
 * <p>It works on the keys and data RRateLimiter keeps and follows the same rules, so the two can be mixed
 * on one limiter (RRateLimiter's {@code tryAcquire}, {@code availablePermits}, {@code getConfig},
 * {@code setRate} and {@code updateRate} all see the same state): the config hash ({@code rate},
 * {@code interval}, {@code type}, {@code keepAliveTime}), the free permits {@code name:value} and one
 * ZSET member per grant in {@code name:permits}, scored with the granting client's clock and packed as
 * {@code struct 'Bc0I'} (id length, id, permits); PER_CLIENT keeps the last two per Redisson instance.
 * A grant returns its permits one interval after its score.
 *
 * <p>Why not RRateLimiter's own {@code tryAcquire}: that one needs a second round trip to tell a rejected
 * caller when to come back, cannot be pipelined with other decisions (Redisson's batches do not offer
 * rate limiters), refreshes the TTL of three keys with three commands on every call, and misbehaves
 * after a partial loss of its keys (see {@code docs/operations.md}). This script, in one call:
 * <ul>
 * <li>returns expired grants, as RRateLimiter does;</li>
 * <li>re-creates a missing counter from the grants still in the window (RRateLimiter re-creates it full,
 * admitting up to twice the rate), and on a rejection checks the invariant free + held = rate cheaply
 * ({@code ZCARD}) and repairs a counter found too high, or too low with no grants left;</li>
 * <li>grants, or answers the milliseconds until enough of the oldest grants have left the window;</li>
 * <li>refreshes the keys' TTL to {@code keepAliveTime} only once it has dropped by 1/16 (and never lets it
 * fall below one interval), instead of on every call.</li>
 * </ul>
 *
 * <p>One argument, {@code "<permits> <now> <grant id>"} ({@link #argument}): Redisson encodes and copies every
 * script argument into a buffer of its own, which cost the caller more than parsing three numbers costs Redis.
 * {@code now} is the caller's clock in milliseconds, as RRateLimiter's own acquire sends it.
 *
 * <p>Reply: 0 when granted, else the milliseconds until the requested permits can be free (at least 1).
 */
final class AcquireScript {

    static final String LUA = """
            local config = redis.call('hmget', KEYS[1], 'rate', 'interval', 'type', 'keepAliveTime')
            local rate = tonumber(config[1])
            local interval = tonumber(config[2])
            if rate == nil or interval == nil or config[3] == false then
              error('RateLimiter is not initialized')
            end
            local valueKey, grantsKey = KEYS[2], KEYS[4]
            if config[3] == '1' then
              valueKey, grantsKey = KEYS[3], KEYS[5]
            end
            local permitsArg, nowArg, grantId = string.match(ARGV[1], '^(%d+) (%d+) (%S+)$')
            local wanted = tonumber(permitsArg)
            if wanted > rate then
              error('Requested permits amount cannot exceed defined rate')
            end
            local now = tonumber(nowArg)
            local function held(grants)
              local sum = 0
              for i = 1, #grants do
                local _, permits = struct.unpack('Bc0I', grants[i])
                sum = sum + permits
              end
              return sum
            end
            local function recounted()
              return rate - held(redis.call('zrange', grantsKey, 0, -1))
            end
            local stored = redis.call('get', valueKey)
            local created = stored == false
            local changed = created
            local free
            if created then
              redis.call('zremrangebyscore', grantsKey, 0, now - interval)
              free = recounted()
            else
              free = tonumber(stored)
              local expired = redis.call('zrangebyscore', grantsKey, 0, now - interval)
              if #expired > 0 then
                redis.call('zremrangebyscore', grantsKey, 0, now - interval)
                free = free + held(expired)
                changed = true
                if free > rate then
                  free = recounted()
                end
              end
              if free < wanted then
                local count = redis.call('zcard', grantsKey)
                if free + count > rate or (count == 0 and free < rate) then
                  free = recounted()
                  changed = true
                end
              end
            end
            local wait = 0
            if free >= wanted then
              redis.call('zadd', grantsKey, now, struct.pack('Bc0I', string.len(grantId), grantId, wanted))
              free = free - wanted
              changed = true
            else
              wait = interval
              local back = free
              local oldest = redis.call('zrange', grantsKey, 0, wanted - free - 1, 'withscores')
              for i = 1, #oldest, 2 do
                local _, permits = struct.unpack('Bc0I', oldest[i])
                back = back + permits
                if back >= wanted then
                  wait = math.max(1, tonumber(oldest[i + 1]) + interval - now)
                  break
                end
              end
            end
            if changed then
              redis.call('set', valueKey, free, 'KEEPTTL')
            end
            local keepAlive = tonumber(config[4]) or 0
            if keepAlive > 0 then
              local slack = math.min(keepAlive - interval, math.floor(keepAlive / 16))
              if created or redis.call('pttl', grantsKey) < keepAlive - slack then
                redis.call('pexpire', KEYS[1], keepAlive)
                redis.call('pexpire', valueKey, keepAlive)
                redis.call('pexpire', grantsKey, keepAlive)
              end
            else
              local ttl = redis.call('pttl', KEYS[1])
              if ttl > 0 then
                redis.call('pexpire', valueKey, ttl)
                redis.call('pexpire', grantsKey, ttl)
              end
            end
            return wait
            """;

    private static final long COUNTER_WRAP = 2_821_109_907_456L; // 36^8

    private final String clientId;
    private final String grantIdPrefix;
    private final AtomicLong grantCounter = new AtomicLong();

    /** @param clientId the Redisson instance's id, which names its PER_CLIENT keys */
    AcquireScript(String clientId) {
        this.clientId = clientId;
        byte[] random = new byte[6];
        new SecureRandom().nextBytes(random);
        this.grantIdPrefix = Base64.getUrlEncoder().encodeToString(random);
    }

    /** Config hash, free permits (shared, then this client's), grants (shared, then this client's). */
    List<Object> keys(String limiterName) {
        String value = LimiterKeys.value(limiterName);
        String permits = LimiterKeys.permits(limiterName);
        return List.of(limiterName, value, LimiterKeys.ofClient(value, clientId), permits,
                LimiterKeys.ofClient(permits, clientId));
    }

    /** The script's argument for one call: permits, the caller's clock, a new grant id. */
    String argument(long permits) {
        return permits + " " + System.currentTimeMillis() + " " + nextGrantId();
    }

    /**
     * The grant's id, 16 characters like RRateLimiter's 16 random bytes (so a grant costs the same memory):
     * 8 random characters per instance of this class (48 bits) and a counter (8 base-36 digits, which take
     * over 30 days at a million grants a second to wrap). Two live grants with the same id would be one
     * ZSET member, and one of them would be lost.
     */
    String nextGrantId() {
        String count = Long.toString(grantCounter.incrementAndGet() % COUNTER_WRAP, 36);
        return grantIdPrefix + "00000000".substring(count.length()) + count;
    }
}
