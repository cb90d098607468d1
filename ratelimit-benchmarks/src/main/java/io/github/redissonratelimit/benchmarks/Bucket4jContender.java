package io.github.redissonratelimit.benchmarks;

import java.time.Duration;
import java.util.function.Supplier;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.redis.redisson.Bucket4jRedisson;
import io.github.bucket4j.redis.redisson.cas.RedissonBasedProxyManager;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * (d) bucket4j's Redisson proxy manager (compare-and-swap: read the bucket, then a CAS script) with
 * capacity N refilled greedily at N per second: the token bucket closest to RRateLimiter's N per second
 * sliding window (same long-run rate and burst; permits trickle back instead of returning all at once).
 */
final class Bucket4jContender implements Contender {

    private final RedissonBasedProxyManager<String> proxyManager;
    private final Supplier<BucketConfiguration> configuration;

    Bucket4jContender(RedissonClient redisson) {
        this.proxyManager = Bucket4jRedisson.casBasedBuilder(((Redisson) redisson).getCommandExecutor())
                .expirationAfterWrite(ExpirationAfterWriteStrategy
                        .basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
                .build();
        BucketConfiguration config = BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(Limits.GENEROUS_RATE)
                        .refillGreedy(Limits.GENEROUS_RATE, Duration.ofSeconds(1)))
                .build();
        this.configuration = () -> config;
    }

    @Override
    public String id() {
        return "d";
    }

    @Override
    public String description() {
        return "bucket4j " + bucket4jVersion() + " `RedissonBasedProxyManager` (CAS), capacity N, `refillGreedy(N, 1s)`";
    }

    @Override
    public boolean decide(int user) {
        return proxyManager.getProxy("bucket4j:" + Users.id(user), configuration).tryConsume(1);
    }

    private static String bucket4jVersion() {
        String version = BucketConfiguration.class.getPackage().getImplementationVersion();
        return version == null ? "" : version;
    }
}
