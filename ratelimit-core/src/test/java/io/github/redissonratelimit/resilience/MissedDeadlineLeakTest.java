package io.github.redissonratelimit.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.slf4j.LoggerFactory;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RedisSentinelProcess;
import io.github.redissonratelimit.test.redis.RedisServerProcess;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * No buffer is leaked when deadlines fire and pipeline lanes are abandoned: Netty's leak detection at its
 * {@code PARANOID} level (every buffer tracked, no sampling) over more than 1,000 decisions that missed their
 * deadline while Redis was paused ({@code CLIENT PAUSE}), many of them batched by the pipeline: answered late after
 * the shorter pauses, cancelled at the liveness time during the longer ones. Leaks are seen through the reports Netty logs, captured from its logger; a buffer leaked on
 * purpose first shows that a leak would be seen. Without the fix in {@code AcquirePipeline} (batched commands
 * cancelled in Redisson), this test saw a report in every run. The same through a Sentinel failover under load: without
 * the lane sending one call at a time after a failure, a report in every run.
 */
class MissedDeadlineLeakTest {

    private static final Duration DEADLINE = Duration.ofMillis(20);
    private static final Duration LIVENESS = Duration.ofMillis(150);

    private final ListAppender<ILoggingEvent> leakReports = new ListAppender<>();
    private ResourceLeakDetector.Level levelBefore;
    private RedisServerProcess server;
    private RedissonClient client;

    @BeforeEach
    void detectEveryLeak() {
        levelBefore = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        leakReports.start();
        leakDetectorLogger().addAppender(leakReports);
        // the reports go to the test only: the one leaked on purpose would read like a failure in the build's log
        leakDetectorLogger().setAdditive(false);
        server = RedisServerProcess.startOnFreePort();
        Config config = new Config();
        config.useSingleServer().setAddress("redis://127.0.0.1:" + server.port());
        client = Redisson.create(config);
    }

    @AfterEach
    void restore() {
        if (client != null) {
            client.shutdown();
        }
        server.close();
        leakDetectorLogger().detachAppender(leakReports);
        leakDetectorLogger().setAdditive(true);
        ResourceLeakDetector.setLevel(levelBefore);
    }

    @Test
    void aThousandMissedDeadlinesLeakNoBuffer() throws Exception {
        aLeakIsSeen();

        ResilientRateLimitBackend backend = new ResilientRateLimitBackend(new RedissonRateLimitBackend(client),
                MasterCircuits.SINGLE, DEADLINE, LIVENESS, Integer.MAX_VALUE, Duration.ofSeconds(1), List::of);
        LimitSpec spec = new LimitSpec(1_000_000, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        try (RespClient cli = new RespClient("127.0.0.1", server.port())) {
            for (int round = 0; backend.getFailureCount() < 1_000; round++) {
                // shorter than the liveness time: answered late; longer: cancelled unanswered
                cli.command("CLIENT", "PAUSE", round % 2 == 0 ? "60" : "300", "ALL");
                List<CompletableFuture<?>> decisions = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    decisions.add(backend.acquire("rl:{leak-" + i % 10 + "}", spec, 1).toCompletableFuture());
                }
                CompletableFuture.allOf(decisions.toArray(CompletableFuture[]::new)).handle((all, ex) -> null).join();
                Thread.sleep(350); // the pause ends; the commands sent are answered
            }
        }
        awaitEveryDoubtSettled(backend);
        assertThat(backend.getUnansweredCount()).as("commands cancelled at the liveness time").isPositive();
        assertThat(backend.getLateAnswerCount()).as("answers after the deadline").isPositive();

        collectLeaks();
        client.shutdown();
        client = null;
        collectLeaks();
        assertThat(leakReports.list).extracting(ILoggingEvent::getFormattedMessage)
                .as("leaks over %d missed deadlines", backend.getFailureCount()).isEmpty();
        System.out.printf("[leak] %d missed deadlines (%d answered late, %d cancelled unanswered): no leak report%n",
                backend.getFailureCount(), backend.getLateAnswerCount(), backend.getUnansweredCount());
    }

    /**
     * Calls queued behind a failed one while Redisson reconnects to a killed Sentinel master: sent in a batch, their
     * argument buffers were never released (one report in every run of four); each lane now sends one call at a time
     * until Redis answers it again.
     */
    @Test
    void aSentinelFailoverUnderLoadLeaksNoBuffer() throws Exception {
        aLeakIsSeen();

        LimitSpec spec = new LimitSpec(1_000_000, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        try (RedisSentinelProcess sentinel = RedisSentinelProcess.start()) {
            RedissonClient failingOver = sentinel.newRedissonClient();
            ResilientRateLimitBackend backend = new ResilientRateLimitBackend(new RedissonRateLimitBackend(failingOver),
                    MasterCircuits.SINGLE, Duration.ofMillis(250), Duration.ofSeconds(1), 3, Duration.ofMillis(300),
                    List::of);
            AtomicBoolean running = new AtomicBoolean(true);
            List<Thread> callers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int first = t;
                Thread caller = new Thread(() -> {
                    for (int i = first; running.get(); i += 8) {
                        backend.acquire("rl:{failover-" + i % 40 + "}", spec, 1).toCompletableFuture()
                                .handle((decision, ex) -> null).join();
                    }
                });
                caller.start();
                callers.add(caller);
            }
            Thread.sleep(500);
            RedisEndpoint killed = sentinel.killMaster();
            sentinel.awaitNewMaster(killed, Duration.ofSeconds(30));
            Thread.sleep(2_000);
            running.set(false);
            for (Thread caller : callers) {
                caller.join();
            }
            assertThat(backend.getFailureCount()).as("decisions Redis gave none during the failover").isPositive();
            collectLeaks();
            failingOver.shutdown();
            collectLeaks();
            assertThat(leakReports.list).extracting(ILoggingEvent::getFormattedMessage)
                    .as("leaks through a failover with %d failed decisions", backend.getFailureCount()).isEmpty();
            System.out.printf("[leak] Sentinel failover under load, %d decisions failed: no leak report%n",
                    backend.getFailureCount());
        }
    }

    /** A buffer leaked on purpose is reported: the test would see a leak. */
    private void aLeakIsSeen() throws InterruptedException {
        leakOneBufferOnPurpose();
        collectLeaks();
        assertThat(leakReports.list).as("the buffer leaked on purpose is reported").isNotEmpty();
        leakReports.list.clear();
    }

    private static void leakOneBufferOnPurpose() {
        ByteBuf leaked = ByteBufAllocator.DEFAULT.buffer(8);
        leaked.writeLong(42);
    }

    /** Lets the collector find unreachable buffers; Netty reports them when it tracks the next buffers. */
    private static void collectLeaks() throws InterruptedException {
        for (int round = 0; round < 10; round++) {
            System.gc();
            Thread.sleep(50);
            for (int i = 0; i < 100; i++) {
                ByteBufAllocator.DEFAULT.buffer(8).release();
            }
        }
    }

    private static void awaitEveryDoubtSettled(ResilientRateLimitBackend backend) throws InterruptedException {
        for (int i = 0; i < 200 && backend.getLateAnswerCount() + backend.getUnansweredCount() < backend.getFailureCount(); i++) {
            Thread.sleep(50);
        }
        assertThat(backend.getLateAnswerCount() + backend.getUnansweredCount()).isEqualTo(backend.getFailureCount());
    }

    private static Logger leakDetectorLogger() {
        return (Logger) LoggerFactory.getLogger(ResourceLeakDetector.class);
    }
}
