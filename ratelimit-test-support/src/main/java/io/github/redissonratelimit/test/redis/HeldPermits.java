package io.github.redissonratelimit.test.redis;

/**
 * The permits a limiter's grants ZSET holds, summed member by member as RRateLimiter counts them (each member packs
 * its permits, {@code struct 'Bc0I'}): the grants of one slice of the window share one member, so the member count
 * is not the grant count.
 */
public final class HeldPermits {

    private static final String SUM = "local sum = 0 for _, member in ipairs(redis.call('zrange', KEYS[1], 0, -1)) do "
            + "local _, permits = struct.unpack('Bc0I', member) sum = sum + permits end return sum";

    private HeldPermits() {
    }

    public static long of(RespClient cli, String permitsKey) {
        return ((Number) cli.command("EVAL", SUM, "1", permitsKey)).longValue();
    }

    /** On the master that holds {@code permitsKey}. */
    public static long of(RedisDeployment redis, String permitsKey) {
        try (RespClient cli = redis.cliFor(permitsKey)) {
            return of(cli, permitsKey);
        }
    }
}
