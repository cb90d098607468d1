package io.github.redissonratelimit.test.redis;

import java.time.Duration;

/**
 * The permits held in an in-flight limiter, as Redis holds them: the permits of its leases not ended by Redis's clock
 * (its grants ZSET, members {@code <lease id>:<permits>:<holder>} scored with the ms at which each ends), and waiting for a
 * count. A call's end gives its lease back at once but off the caller's path, so a test waits for it; with the
 * default lease period of 30 s, renewed while the call runs, permits back within {@link #GIVEN_BACK_WITHIN} were
 * given back, not left to expire.
 */
public final class InFlightPermits {

    /** Well within a default lease period (30 s), and long for a give-back on a loaded machine. */
    public static final Duration GIVEN_BACK_WITHIN = Duration.ofSeconds(10);

    private static final String HELD = "local t = redis.call('time') local now = t[1] * 1000 + math.floor(t[2] / 1000) "
            + "local held = 0 for _, lease in ipairs(redis.call('zrangebyscore', KEYS[1], string.format('(%d', now), '+inf')) do "
            + "held = held + tonumber(string.match(lease, '^%d+:(%d+)')) end return held";

    private final RedisDeployment redis;

    public InFlightPermits(RedisDeployment redis) {
        this.redis = redis;
    }

    /** The permits held now in the limiter of {@code logicalKey} (default naming: {@code rate_limit:{key}}). */
    public long held(String logicalKey) {
        String leases = "rate_limit:{" + logicalKey + "}:permits";
        try (RespClient cli = redis.cliFor(leases)) {
            return ((Number) cli.command("EVAL", HELD, "1", leases)).longValue();
        }
    }

    /**
     * What Redis holds for {@code logicalKey}'s limiter, for a failure's message: its state, its leases with the ms
     * each ends, and Redis's time in ms.
     */
    public String describe(String logicalKey) {
        String leases = "rate_limit:{" + logicalKey + "}:permits";
        try (RespClient cli = redis.cliFor(leases)) {
            Object time = cli.command("EVAL", "local t = redis.call('time') return t[1] * 1000 + math.floor(t[2] / 1000)",
                    "0");
            return "state " + cli.string("GET", "rate_limit:{" + logicalKey + "}:value") + ", leases "
                    + cli.command("ZRANGE", leases, "0", "-1", "WITHSCORES") + " at " + time;
        }
    }

    /** Waits until {@code logicalKey}'s limiter holds {@code permits}; fails with the last count after the bound. */
    public void awaitHeld(String logicalKey, long permits) {
        Polling.await(GIVEN_BACK_WITHIN, permits + " permit(s) held in " + logicalKey, () -> {
            long held = held(logicalKey);
            return held == permits ? "" : Polling.notYet(held + " held");
        });
    }

    /** Waits until every permit of {@code logicalKey}'s limiter was given back. */
    public void awaitGivenBack(String logicalKey) {
        awaitHeld(logicalKey, 0);
    }
}
