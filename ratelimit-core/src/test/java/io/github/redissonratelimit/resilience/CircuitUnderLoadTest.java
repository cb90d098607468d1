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
import io.github.redissonratelimit.test.RunsAlone;
import io.github.redissonratelimit.test.redis.RedisServerProcess;

/**
 * A busy JVM does not abandon a healthy Redis: callers deciding without pause on a healthy Redis, first in a JVM just
 * started, then with the host loaded to twice its cores (busy threads): decisions that miss the deadline are answered
 * late, and the circuit never opens. Prints the figures of {@code docs/operations.md}.
 */
@RunsAlone
class CircuitUnderLoadTest {

    private static final Duration WARM_UP = Duration.ofSeconds(3);
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
                // a JVM just started runs its first calls interpreted while it compiles them: late answers then
                // are its own; counted apart, before the host is loaded
                LongAdder warmDecisions = new LongAdder();
                run(WARM_UP, 0, threads, () -> decide(backend, spec, warmDecisions));
                long missedWarm = backend.getFailureCount();
                LongAdder decisions = new LongAdder();
                run(LOAD, threads, threads, () -> decide(backend, spec, decisions));
                for (int i = 0; i < 250 && backend.getLateAnswerCount() + backend.getUnansweredCount()
                        < backend.getFailureCount(); i++) {
                    Thread.sleep(20);
                }
                assertThat(backend.getUnansweredCount()).isZero();
                assertThat(backend.getLateAnswerCount()).isEqualTo(backend.getFailureCount());
                assertThat(stateChanges).as("circuit state changes").isEmpty();
                assertThat(backend.getSkippedCount()).isZero();
                long missed = backend.getFailureCount() - missedWarm;
                System.out.printf("[load] %d callers on %d cores for %d s after the JVM started: %d decisions, %d missed "
                        + "the 100 ms deadline; then with %d busy threads for %d s: %d decisions, %d missed (%.3f %%); "
                        + "all answered within the liveness time; circuit state changes: %d%n", threads, threads / 2,
                        WARM_UP.toSeconds(), warmDecisions.sum(), missedWarm, threads, LOAD.toSeconds(),
                        decisions.sum(), missed, 100.0 * missed / Math.max(1, decisions.sum()), stateChanges.size());
            }
            finally {
                client.shutdown();
            }
        }
    }

    /** One decision; a call that misses the deadline would get the outage policy. */
    private static void decide(ResilientRateLimitBackend backend, LimitSpec spec, LongAdder decisions) {
        try {
            backend.acquire("rl:{load-" + Thread.currentThread().getName() + "}", spec, 1).toCompletableFuture().join();
        }
        catch (CompletionException outagePolicy) {
            // missed the deadline
        }
        decisions.increment();
    }

    /** {@code busy} threads spinning and {@code callers} threads deciding one after the other, for {@code time}. */
    private static void run(Duration time, int busy, int callers, Runnable decision) throws InterruptedException {
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> all = new ArrayList<>();
        for (int i = 0; i < busy; i++) {
            all.add(new Thread(() -> spin(running)));
        }
        for (int i = 0; i < callers; i++) {
            all.add(new Thread(() -> {
                while (running.get()) {
                    decision.run();
                }
            }, "caller-" + i));
        }
        all.forEach(Thread::start);
        Thread.sleep(time.toMillis());
        running.set(false);
        for (Thread thread : all) {
            thread.join();
        }
    }

    private static void spin(AtomicBoolean running) {
        long sink = 0;
        while (running.get()) {
            sink += System.nanoTime() % 7;
        }
        if (sink == 42) {
            System.out.print("");
        }
    }
}
