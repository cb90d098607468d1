package io.github.redissonratelimit.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.outcome.CircuitState;
import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.RedisServerProcess;

/**
 * A busy JVM does not abandon a healthy Redis: with the host loaded to twice its cores (busy threads) and as many
 * callers deciding without pause on a healthy Redis, decisions that miss the deadline are answered late, and
 * the circuit never opens. Prints the figures of {@code docs/operations.md}.
 */
class CircuitUnderLoadTest {

    private static final Duration LOAD = Duration.ofSeconds(8);

    @Test
    void aLoadedHostMissesDeadlinesButNeverOpensTheCircuitOnAHealthyRedis() throws Exception {
        List<String> stateChanges = new CopyOnWriteArrayList<>();
        RateLimitListener listener = new RateLimitListener() {
            @Override
            public void onOutcomes(List<io.github.redissonratelimit.outcome.RateLimitOutcome> outcomes) {
            }

            @Override
            public void onCircuitStateChange(String master, CircuitState from, CircuitState to) {
                stateChanges.add(from + "->" + to);
            }
        };
        int threads = 2 * Runtime.getRuntime().availableProcessors();
        try (RedisServerProcess server = RedisServerProcess.startOnFreePort()) {
            Config config = new Config();
            config.useSingleServer().setAddress("redis://127.0.0.1:" + server.port());
            RedissonClient client = Redisson.create(config);
            try {
                RedissonRateLimitBackend redis = new RedissonRateLimitBackend(client);
                ResilientRateLimitBackend backend = new ResilientRateLimitBackend(redis, redis, Duration.ofMillis(100),
                        ResilientRateLimitBackend.defaultLiveness(Duration.ofMillis(100)), 5, Duration.ofSeconds(1),
                        () -> List.of(listener));
                LimitSpec spec = new LimitSpec(1_000_000_000, Duration.ofMinutes(1), RateLimitMode.OVERALL);
                LongAdder decisions = new LongAdder();
                AtomicBoolean running = new AtomicBoolean(true);
                List<Thread> all = new ArrayList<>();
                for (int i = 0; i < threads; i++) {
                    all.add(new Thread(spin(running)));
                    int caller = i;
                    all.add(new Thread(() -> {
                        while (running.get()) {
                            try {
                                backend.acquire("rl:{load-" + caller + "}", spec, 1).toCompletableFuture().join();
                            }
                            catch (CompletionException outagePolicy) {
                                // missed the deadline: this call would get the outage policy
                            }
                            decisions.increment();
                        }
                    }));
                }
                all.forEach(Thread::start);
                Thread.sleep(LOAD.toMillis());
                running.set(false);
                for (Thread thread : all) {
                    thread.join();
                }
                for (int i = 0; i < 250 && backend.getLateAnswerCount() + backend.getUnansweredCount()
                        < backend.getFailureCount(); i++) {
                    Thread.sleep(20);
                }
                assertThat(backend.getUnansweredCount()).isZero();
                assertThat(backend.getLateAnswerCount()).isEqualTo(backend.getFailureCount());
                assertThat(stateChanges).as("circuit state changes").isEmpty();
                assertThat(backend.getSkippedCount()).isZero();
                System.out.printf("[load] %d busy threads and %d callers on %d cores for %d s: %d decisions, %d missed "
                        + "the 100 ms deadline (%.2f %%), all answered within the liveness time; circuit state changes: "
                        + "%d%n", threads, threads, threads / 2, LOAD.toSeconds(), decisions.sum(),
                        backend.getFailureCount(), 100.0 * backend.getFailureCount() / Math.max(1, decisions.sum()),
                        stateChanges.size());
            }
            finally {
                client.shutdown();
            }
        }
    }

    private static Runnable spin(AtomicBoolean running) {
        return () -> {
            long sink = 0;
            while (running.get()) {
                sink += System.nanoTime() % 7;
            }
            if (sink == 42) {
                System.out.print("");
            }
        };
    }
}
