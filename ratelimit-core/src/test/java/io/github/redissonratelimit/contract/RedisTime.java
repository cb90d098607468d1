package io.github.redissonratelimit.contract;

import java.time.Instant;
import java.util.List;

import io.github.redissonratelimit.test.redis.RedisDeployment;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * Redis's clock as this test reads it around each call: the host's clock, set against Redis's {@code TIME} by the
 * reading with the shortest round trip (a script's {@code TIME} runs between a call's send and its answer, so a
 * call that started at {@link #now()} and ended at a later {@link #now()} was decided by Redis within those two
 * readings, give or take {@link #errorMicros()}). Independent of the clocks the backends under test are given.
 */
final class RedisTime {

    private final long offsetMicros;
    private final long errorMicros;

    private RedisTime(long offsetMicros, long errorMicros) {
        this.offsetMicros = offsetMicros;
        this.errorMicros = errorMicros;
    }

    /** Calibrated on the master that holds {@code key}: 20 readings, the one with the shortest round trip kept. */
    static RedisTime of(RedisDeployment redis, String key) {
        long bestRoundTrip = Long.MAX_VALUE;
        long offset = 0;
        try (RespClient cli = redis.cliFor(key)) {
            for (int i = 0; i < 20; i++) {
                long before = hostMicros();
                List<Object> time = cli.list("TIME");
                long after = hostMicros();
                long redisMicros = Long.parseLong(String.valueOf(time.get(0))) * 1_000_000
                        + Long.parseLong(String.valueOf(time.get(1)));
                if (after - before < bestRoundTrip) {
                    bestRoundTrip = after - before;
                    offset = redisMicros - (before + after) / 2;
                }
            }
        }
        return new RedisTime(offset, bestRoundTrip / 2 + 1);
    }

    /** Redis's time now (µs since the epoch), within {@link #errorMicros()}. */
    long now() {
        return hostMicros() + offsetMicros;
    }

    /** How far {@link #now()} may be from what Redis's {@code TIME} says at that moment (µs). */
    long errorMicros() {
        return errorMicros;
    }

    long offsetMicros() {
        return offsetMicros;
    }

    private static long hostMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }
}
