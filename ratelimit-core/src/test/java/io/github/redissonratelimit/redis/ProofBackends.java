package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;

import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LocalRejectionCache;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.test.redis.RedisDeployment;
import io.github.redissonratelimit.test.redis.RedissonClients;

/** The instances of the exactness proofs: each a backend on its own client and clock, the flood shortcut in front. */
final class ProofBackends {

    private ProofBackends() {
    }

    /** One backend with {@code options} per offset, its clock that far from this JVM's; each warmed up. */
    static List<RateLimitBackend> create(RedissonClients clients, RedisDeployment redis, BackendOptions options,
            Duration... clockOffsets) {
        List<RateLimitBackend> backends = new ArrayList<>();
        for (Duration offset : clockOffsets) {
            InstantSource clock = Clock.offset(Clock.systemUTC(), offset);
            RedissonRateLimitBackend backend = new RedissonRateLimitBackend(clients.create(redis), options, clock);
            acquire(backend, "warm-up:{" + backends.size() + "}",
                    new LimitSpec(1, Duration.ofSeconds(1), RateLimitMode.OVERALL), 1);
            backends.add(new LocalRejectionCache(backend, 10_000));
        }
        return backends;
    }
}
