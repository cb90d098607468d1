package io.github.redissonratelimit.contract;

import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;

import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.limiter.LocalRejectionCache;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.limiter.WaitingRateLimitBackend;
import io.github.redissonratelimit.local.LocalFallback;
import io.github.redissonratelimit.local.LocalOutagePolicy;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.BackendOptions;
import io.github.redissonratelimit.redis.InMemoryGrantWriter;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.redis.membership.InstanceHeartbeat;
import io.github.redissonratelimit.resilience.ResilientRateLimitBackend;
import io.github.redissonratelimit.test.redis.RedisDeployment;

/**
 * One application instance as the auto-configuration composes it, on its own Redisson client: the Redis backend on
 * a clock {@code clockOffset} off Redis's (Redis's clock decides, the default), the deadline and circuit breaker,
 * the flood shortcut, the wait, and the {@code local} outage policy with the instance heartbeat (every 200 ms) and the
 * write-back of grants made in memory.
 */
final class Instance implements AutoCloseable {

    final RedissonClient client;
    final RateLimitBackend stack;
    final LocalFallback fallback;
    /** Where its clock is against Redis's (behind, right, ahead): which instance made a grant, in reports. */
    final String label;
    private final InstanceHeartbeat heartbeat;

    private Instance(RedissonClient client, RateLimitBackend stack, LocalFallback fallback, String label,
            InstanceHeartbeat heartbeat) {
        this.client = client;
        this.stack = stack;
        this.fallback = fallback;
        this.label = label;
        this.heartbeat = heartbeat;
    }

    /** @param deadline how long a decision may take before the outage policy decides instead */
    static Instance start(RedisDeployment redis, Duration clockOffset, Duration deadline) {
        return start(redis, clockOffset, deadline, Duration.ofMillis(200));
    }

    /** @param beat how often the instance beats (the auto-configuration's default is 5 s) */
    static Instance start(RedisDeployment redis, Duration clockOffset, Duration deadline, Duration beat) {
        return start(redis, clockOffset, deadline, beat, BackendOptions.DEFAULTS);
    }

    /** @param options the backend's, e.g. with {@code ratelimit.clock=client} */
    static Instance start(RedisDeployment redis, Duration clockOffset, Duration deadline, Duration beat,
            BackendOptions options) {
        RedissonClient client = redis.newRedissonClient();
        InstantSource clock = Clock.offset(Clock.systemUTC(), clockOffset);
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client, options, clock);
        ResilientRateLimitBackend resilient = new ResilientRateLimitBackend(backend, deadline, 3,
                Duration.ofMillis(300), List.of());
        InstanceHeartbeat heartbeat = new InstanceHeartbeat(client, new LimiterNaming(), beat, 0);
        heartbeat.start(Duration.ofSeconds(5));
        LocalFallback fallback = new LocalFallback(heartbeat, 10_000)
                .writeBackTo(new InMemoryGrantWriter(client, options));
        heartbeat.reportInMemoryGrants(fallback::millisSinceLastLocalGrant);
        RateLimitBackend stack = new LocalOutagePolicy(new WaitingRateLimitBackend(
                new LocalRejectionCache(resilient, 10_000)), fallback);
        String label = clockOffset.isZero() ? "right" : clockOffset.isNegative() ? "behind" : "ahead";
        return new Instance(client, stack, fallback, label, heartbeat);
    }

    /** The instances the heartbeats count. */
    int counted() {
        return heartbeat.instances();
    }

    /** Waits until each of {@code instances} counts them all. */
    static void awaitCounted(List<Instance> instances) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (instances.stream().anyMatch(instance -> instance.counted() != instances.size())) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the heartbeats count "
                        + instances.stream().map(Instance::counted).toList() + " instances, not " + instances.size());
            }
            Thread.sleep(20);
        }
    }

    @Override
    public void close() {
        heartbeat.close();
        client.shutdown();
    }
}
