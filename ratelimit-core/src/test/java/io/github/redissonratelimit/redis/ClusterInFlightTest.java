package io.github.redissonratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.ReleaseSignals;
import io.github.redissonratelimit.limiter.WaitingRateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.RedisClusterProcess;

/**
 * An in-flight limit on a Redis Cluster: its leases in the slot of its limiter, and a give-back that wakes a caller
 * waiting on another instance (the give-back publishes from its script, which the cluster sends to every node).
 */
class ClusterInFlightTest {

    private static final LimitSpec TWO = new LimitSpec(2, Duration.ofSeconds(30), RateLimitMode.OVERALL,
            LimitAlgorithm.IN_FLIGHT);

    private final RedisClusterProcess cluster = RedisClusterProcess.shared();
    private final String name = new LimiterNaming().limiterName("export:cluster");
    private RedissonClient holderClient;
    private RedissonClient waiterClient;

    @BeforeEach
    void setUp() {
        cluster.flushAll();
        holderClient = cluster.newRedissonClient();
        waiterClient = cluster.newRedissonClient();
    }

    @AfterEach
    void tearDown() {
        holderClient.shutdown();
        waiterClient.shutdown();
    }

    private static Decision get(java.util.concurrent.CompletionStage<Decision> stage) throws Exception {
        return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void aGiveBackOnOneInstanceWakesACallerWaitingOnAnother() throws Exception {
        RedissonRateLimitBackend holder = new RedissonRateLimitBackend(holderClient);
        RedissonRateLimitBackend other = new RedissonRateLimitBackend(waiterClient);
        WaitingRateLimitBackend waiting = new WaitingRateLimitBackend(other, new ReleaseSubscriptions(waiterClient));
        Decision held = get(holder.acquire(name, TWO, 2));
        assertThat(held.allowed()).isTrue();
        assertThat(get(other.acquire(name, TWO, 1)).allowed()).isFalse();

        CompletableFuture<Decision> waiter = waiting.acquire(AcquireRequest.of(name, TWO, 1)
                .waitingUpTo(Duration.ofSeconds(20))).toCompletableFuture();
        ReleaseSignals.Signal signal = new ReleaseSubscriptions(waiterClient).next(name, 1, System.nanoTime());
        signal.listening().toCompletableFuture().get(30, TimeUnit.SECONDS);
        Thread.sleep(300);
        assertThat(waiter).as("both permits are held").isNotDone();
        assertThat(signal.released()).isNotDone();
        holder.release(AcquireRequest.of(name, TWO, 2), held).toCompletableFuture().get(30, TimeUnit.SECONDS);
        signal.released().get(30, TimeUnit.SECONDS); // only a message of the give-back completes it
        assertThat(get(waiter).allowed()).isTrue();
        assertThat(get(holder.acquire(name, TWO, 1)).allowed()).as("one of two held by the waiter").isTrue();
        assertThat(get(holder.acquire(name, TWO, 1)).allowed()).isFalse();
    }
}
