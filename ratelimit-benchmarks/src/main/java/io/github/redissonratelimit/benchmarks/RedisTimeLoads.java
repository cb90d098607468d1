package io.github.redissonratelimit.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.AsyncBucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.AsyncProxyManager;
import io.github.bucket4j.redis.redisson.Bucket4jRedisson;
import org.redisson.Redisson;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;

/**
 * The loads of {@link RedisTimeScenario}: (a) RRateLimiter's {@code tryAcquireAsync()}, (b) this project's Redis
 * backend (its acquire script, pipelined, without the local rejection cache in front, so that rejected decisions
 * reach Redis too) and (d) bucket4j's asynchronous Redisson proxy; each once over limiters that allow every
 * decision ({@link Limits#GENEROUS_RATE} per second) and once over full ones (rate 1 per hour, taken).
 */
final class RedisTimeLoads {

    private static final List<String> SCRIPT_CALLS = List.of("evalsha", "eval");

    private static final Duration HOUR = Duration.ofHours(1);

    private RedisTimeLoads() {
    }

    static List<RedisTimeScenario.Load> all(RedissonClient redisson) {
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(redisson);
        AsyncProxyManager<String> buckets = Bucket4jRedisson.casBasedBuilder(((Redisson) redisson).getCommandExecutor())
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
                .build().asAsync();
        return List.of(raw(redisson, true), ours(backend, true), bucket4j(buckets, true),
                raw(redisson, false), ours(backend, false), bucket4j(buckets, false));
    }

    static RedisTimeScenario.Load raw(RedissonClient redisson, boolean allowed) {
        RRateLimiter[] limiters = new RRateLimiter[Users.COUNT];
        for (int user = 0; user < Users.COUNT; user++) {
            limiters[user] = redisson.getRateLimiter("redis-time:raw:" + allowed + ":{" + Users.id(user) + "}");
            limiters[user].trySetRate(RateType.OVERALL, allowed ? Limits.GENEROUS_RATE : 1,
                    allowed ? Duration.ofSeconds(1) : HOUR, Limits.KEY_TTL);
            if (!allowed) {
                limiters[user].tryAcquire();
            }
        }
        return new RedisTimeScenario.Load("a", allowed, user -> limiters[user].tryAcquireAsync(), SCRIPT_CALLS);
    }

    static RedisTimeScenario.Load ours(RedissonRateLimitBackend backend, boolean allowed) {
        LimiterNaming naming = new LimiterNaming();
        LimitSpec spec = allowed ? new LimitSpec(Limits.GENEROUS_RATE, Duration.ofSeconds(1), RateLimitMode.OVERALL)
                : new LimitSpec(1, HOUR, RateLimitMode.OVERALL);
        String[] names = new String[Users.COUNT];
        for (int user = 0; user < Users.COUNT; user++) {
            names[user] = naming.limiterName("redis-time:ours:" + allowed + ":" + Users.id(user));
            if (!allowed) {
                backend.acquire(names[user], spec, 1).join();
            }
        }
        IntFunction<java.util.concurrent.CompletionStage<Boolean>> decide =
                user -> backend.acquire(names[user], spec, 1).thenApply(Decision::allowed);
        return new RedisTimeScenario.Load("b", allowed, decide, SCRIPT_CALLS);
    }

    private static RedisTimeScenario.Load bucket4j(AsyncProxyManager<String> buckets, boolean allowed) {
        BucketConfiguration config = BucketConfiguration.builder()
                .addLimit(limit -> allowed
                        ? limit.capacity(Limits.GENEROUS_RATE).refillGreedy(Limits.GENEROUS_RATE, Duration.ofSeconds(1))
                        : limit.capacity(1).refillGreedy(1, HOUR))
                .build();
        AsyncBucketProxy[] proxies = new AsyncBucketProxy[Users.COUNT];
        for (int user = 0; user < Users.COUNT; user++) {
            proxies[user] = buckets.builder().build("redis-time:bucket4j:" + allowed + ":" + Users.id(user),
                    () -> CompletableFuture.completedFuture(config));
            if (!allowed) {
                proxies[user].tryConsume(1).join();
            }
        }
        // bucket4j's CAS reads the bucket with a GET, then writes it with a script
        return new RedisTimeScenario.Load("d", allowed, user -> proxies[user].tryConsume(1),
                List.of("get", "evalsha", "eval"));
    }
}
