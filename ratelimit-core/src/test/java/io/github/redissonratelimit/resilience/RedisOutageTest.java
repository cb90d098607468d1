package io.github.redissonratelimit.resilience;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;
import org.redisson.config.EqualJitterDelay;
import org.slf4j.LoggerFactory;
import org.springframework.aop.framework.autoproxy.DefaultAdvisorAutoProxyCreator;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import io.github.redissonratelimit.local.DecisionStacks;
import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitBackendUnavailableException.Reason;
import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.interceptor.RateLimitAdvisor;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.operation.AnnotationRateLimitOperationSource;
import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.redis.BackendOptions;
import io.github.redissonratelimit.redis.ConfigChangePolicy;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.outcome.CircuitState;
import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.RedisServerProcess;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * A Redis of its own, made slow ({@code CLIENT PAUSE}, a busy script) or stopped and started again on the same port
 * while calls keep coming. Redisson keeps its default command timeout (3s) and retries (4), so that
 * the bound on each call can only come from the deadline.
 */
class RedisOutageTest {

    private static final Duration DEADLINE = Duration.ofMillis(100);
    /** Generous: scheduling on a loaded machine; Redisson alone would wait seconds (timeout 3s, 4 retries). */
    private static final Duration MARGIN = Duration.ofMillis(900);
    private static final Duration OPEN = Duration.ofMillis(500);

    private static RedisServerProcess server;

    private final List<RedissonClient> clients = new ArrayList<>();
    private final List<String> stateChanges = new CopyOnWriteArrayList<>();
    /** Decisions without an answer when the circuit opened; -1 before. */
    private final AtomicLong failuresWhenOpened = new AtomicLong(-1);
    private volatile ResilientRateLimitBackend current;
    private ListAppender<ILoggingEvent> logs;
    private AnnotationConfigApplicationContext context;

    @BeforeAll
    static void startRedis() {
        server = RedisServerProcess.startOnFreePort();
    }

    @AfterAll
    static void stopRedis() {
        server.stop();
    }

    @BeforeEach
    void captureLogs() {
        server.start();
        try (RespClient cli = cli()) {
            cli.command("FLUSHALL");
        }
        logs = new ListAppender<>();
        logs.start();
        logger().addAppender(logs);
    }

    @AfterEach
    void cleanUp() {
        logger().detachAppender(logs);
        if (context != null) {
            context.close();
        }
        clients.forEach(RedissonClient::shutdown);
    }

    private static Logger logger() {
        return (Logger) LoggerFactory.getLogger(ResilientRateLimitBackend.class);
    }

    private static RespClient cli() {
        return new RespClient("127.0.0.1", server.port());
    }

    private RedissonClient client() {
        Config config = new Config();
        config.useSingleServer()
                .setAddress("redis://127.0.0.1:" + server.port())
                .setConnectionMinimumIdleSize(1)
                .setConnectionPoolSize(4)
                .setConnectTimeout(1_000)
                // reconnect quickly once Redis is back; command timeout and retries stay Redisson's defaults
                .setReconnectionDelay(new EqualJitterDelay(Duration.ofMillis(20), Duration.ofMillis(200)));
        RedissonClient client = Redisson.create(config);
        clients.add(client);
        return client;
    }

    private ResilientRateLimitBackend resilient(RedissonClient client, int failureThreshold) {
        return resilient(client, failureThreshold, OPEN);
    }

    private ResilientRateLimitBackend resilient(RedissonClient client, int failureThreshold, Duration open) {
        return resilient(client, ResilientRateLimitBackend.defaultLiveness(DEADLINE), failureThreshold, open);
    }

    private ResilientRateLimitBackend resilient(RedissonClient client, Duration liveness, int failureThreshold,
            Duration open) {
        RedissonRateLimitBackend redis = new RedissonRateLimitBackend(client);
        ResilientRateLimitBackend backend = new ResilientRateLimitBackend(redis, redis, DEADLINE, liveness,
                failureThreshold, open, () -> List.of(new RateLimitListener() {
                    @Override
                    public void onOutcomes(java.util.List<io.github.redissonratelimit.outcome.RateLimitOutcome> outcomes) {
                    }

                    @Override
                    public void onCircuitStateChange(CircuitState from, CircuitState to) {
                        if (from == CircuitState.CLOSED && to == CircuitState.OPEN) {
                            failuresWhenOpened.compareAndSet(-1, current.getFailureCount());
                        }
                        stateChanges.add(from + "->" + to);
                    }
                }));
        current = backend;
        return backend;
    }

    @Test
    void aRedisPausedLongerThanTheLivenessTimeCostsEachCallTheDeadlineThenIsSkippedUntilAProbeFindsItBack()
            throws Exception {
        // liveness 300 ms, pause 1 s: the three decisions miss their deadline and get no answer within the liveness
        // time; open longer than the pause, to watch an open circuit while Redis answers again
        ResilientRateLimitBackend backend = resilient(client(), Duration.ofMillis(300), 3, Duration.ofMillis(2_500));
        LimitSpec spec = new LimitSpec(1_000, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        awaitRecovery(() -> acquire(backend, "rl:{stall}", spec, 1).allowed(), Duration.ofSeconds(10));

        try (RespClient cli = cli()) {
            cli.command("CLIENT", "PAUSE", "1000", "ALL"); // Redis stops answering every client for 1 s
        }
        long pausedAt = System.nanoTime();
        List<Long> stalledMillis = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> acquire(backend, "rl:{stall}", spec, 1))
                    .isInstanceOfSatisfying(RateLimitBackendUnavailableException.class,
                            ex -> assertThat(ex.getReason()).isEqualTo(Reason.TIMEOUT));
            stalledMillis.add(millisSince(start));
        }
        assertThat(stalledMillis).allSatisfy(millis -> assertThat(millis)
                .isGreaterThanOrEqualTo(DEADLINE.toMillis() - 1).isLessThan(DEADLINE.plus(MARGIN).toMillis()));
        awaitCount(backend::getUnansweredCount, 3);
        assertThat(stateChanges).containsExactly("CLOSED->OPEN");
        assertThat(backend.getLateAnswerCount()).isZero();

        // once the pause is over, Redis runs the commands given up; then the open circuit keeps every call away
        sleepUntil(pausedAt, Duration.ofMillis(1_300));
        assertThat(backend.getState()).as("the pause must end within the open duration").isEqualTo(CircuitState.OPEN);
        CommandStats before = commandStats();
        List<Long> skippedNanos = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> acquire(backend, "rl:{stall}", spec, 1))
                    .isInstanceOfSatisfying(RateLimitBackendUnavailableException.class,
                            ex -> assertThat(ex.getReason()).isEqualTo(Reason.CIRCUIT_OPEN));
            skippedNanos.add(System.nanoTime() - start);
        }
        CommandStats delta = commandStats().minus(before);
        assertThat(delta.calls("evalsha") + delta.calls("eval")).as("commands while open: %s", delta).isZero();
        assertThat(backend.getSkippedCount()).isEqualTo(50);

        // after the open duration one probe goes to Redis; it answers, and limiting resumes
        awaitRecovery(() -> acquire(backend, "rl:{stall}", spec, 1).allowed(), Duration.ofSeconds(10));
        assertThat(backend.getState()).isEqualTo(CircuitState.CLOSED);
        assertThat(stateChanges).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->CLOSED");
        System.out.printf("[outage] stalled Redis: calls took %s ms (deadline %d ms); skipped calls took %.1f us on "
                + "average, max %.1f us%n", stalledMillis, DEADLINE.toMillis(),
                skippedNanos.stream().mapToLong(Long::longValue).average().orElse(0) / 1_000.0,
                skippedNanos.stream().mapToLong(Long::longValue).max().orElse(0) / 1_000.0);
    }

    @Test
    void aRedisSlowerThanTheDeadlineButAliveNeverOpensTheCircuit() throws Exception {
        // threshold 1: a single decision counted as a failure would open it; liveness 1 s (the default)
        ResilientRateLimitBackend backend = resilient(client(), 1, OPEN);
        LimitSpec spec = new LimitSpec(1_000_000, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        awaitRecovery(() -> acquire(backend, "rl:{slow}", spec, 1).allowed(), Duration.ofSeconds(10));
        try (RespClient cli = cli(); RespClient busy = cli()) {
            for (int round = 0; round < 6; round++) {
                CompletableFuture<Object> slowdown;
                if (round % 2 == 0) {
                    cli.command("CLIENT", "PAUSE", "250", "ALL"); // shorter than the liveness time
                    slowdown = CompletableFuture.completedFuture(null);
                }
                else { // a script on another connection keeps Redis busy for 250 ms
                    slowdown = CompletableFuture.supplyAsync(() -> busy.command("EVAL", BUSY_250_MS, "0"));
                    Thread.sleep(20);
                }
                List<CompletableFuture<?>> decisions = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    decisions.add(backend.acquire("rl:{slow-" + i % 4 + "}", spec, 1).toCompletableFuture());
                }
                CompletableFuture.allOf(decisions.toArray(CompletableFuture[]::new)).handle((all, ex) -> null).join();
                slowdown.join();
                awaitCount(() -> backend.getLateAnswerCount() + backend.getUnansweredCount(), backend.getFailureCount());
            }
        }
        assertThat(backend.getFailureCount()).as("decisions that missed the deadline").isGreaterThanOrEqualTo(60);
        assertThat(backend.getLateAnswerCount()).isEqualTo(backend.getFailureCount());
        assertThat(backend.getUnansweredCount()).isZero();
        assertThat(stateChanges).isEmpty();
        assertThat(backend.getState()).isEqualTo(CircuitState.CLOSED);
        System.out.printf("[outage] slow Redis (250 ms pauses and busy scripts): %d decisions missed the %d ms "
                + "deadline, all answered within the liveness time; circuit never opened%n", backend.getFailureCount(),
                DEADLINE.toMillis());
    }

    @Test
    void redisStoppedMidRunAppliesEachLimitsPolicyAndRecoversWhenRedisIsBack() throws Exception {
        Service service = start(client());
        ResilientRateLimitBackend backend = context.getBean(ResilientRateLimitBackend.class);
        assertThat(service.read("a")).isEqualTo("read a");
        assertThat(service.write("a")).isEqualTo("wrote a");
        // a cold JVM's first decision may miss the deadline (the read runs anyway): count from the outage on
        long failuresBefore = backend.getFailureCount();

        server.stop();
        long stoppedAt = System.nanoTime();
        List<Long> latencies = new ArrayList<>();
        int reads = 0;
        int deniedWrites = 0;
        while (millisSince(stoppedAt) < 2_000) {
            long start = System.nanoTime();
            assertThat(service.read("a")).isEqualTo("read a"); // ALLOW: runs without a decision
            latencies.add(millisSince(start));
            reads++;
            start = System.nanoTime();
            try {
                service.write("a");
                fail("a DENY limit must not run without a decision");
            }
            catch (RateLimitBackendUnavailableException ex) { // the only exception allowed to escape
                assertThat(ex.getReason()).isIn(Reason.TIMEOUT, Reason.ERROR, Reason.CIRCUIT_OPEN);
                assertThat(ex.getRetryAfterSeconds()).isEqualTo(1);
                deniedWrites++;
            }
            latencies.add(millisSince(start));
            Thread.sleep(10);
        }
        assertThat(service.reads()).isEqualTo(reads + 1);
        assertThat(service.writes()).isEqualTo(1);
        assertThat(deniedWrites).isEqualTo(reads);
        assertThat(latencies).allSatisfy(millis -> assertThat(millis).isLessThan(DEADLINE.plus(MARGIN).toMillis()));
        // only the calls before the circuit opened (5 failures, counted when errors came or the liveness time
        // passed) and one probe per open duration waited for Redis
        long probes = 2_000 / OPEN.toMillis() + 1;
        assertThat(failuresWhenOpened.get() - failuresBefore).isGreaterThanOrEqualTo(5);
        assertThat(backend.getFailureCount() - failuresWhenOpened.get()).isBetween(0L, probes);
        assertThat(backend.getSkippedCount()).isEqualTo(2L * reads - (backend.getFailureCount() - failuresBefore));
        assertThat(backend.getState()).isIn(CircuitState.OPEN, CircuitState.HALF_OPEN);

        server.start(); // same port, empty: the limiters are created again
        long restartedAt = System.nanoTime();
        awaitRecovery(() -> {
            service.write("b");
            return true;
        }, Duration.ofSeconds(15));
        long recoveryMillis = millisSince(restartedAt);
        assertThat(backend.getState()).as("state changes %s", stateChanges).isEqualTo(CircuitState.CLOSED);

        // the limits apply again
        assertThat(service.read("c")).isEqualTo("read c");
        assertThat(service.read("c")).isEqualTo("read c");
        assertThatThrownBy(() -> service.read("c")).isInstanceOf(RateLimitExceededException.class);

        List<String> warnings = messages(Level.WARN);
        assertThat(warnings).as("one warning when Redis went away").singleElement().asString()
                .contains("Redis failed 5 rate limit decisions in a row");
        assertThat(messages(Level.INFO)).as("one notice when it came back").singleElement().asString()
                .contains("answers rate limit decisions again");
        System.out.printf("[outage] Redis stopped: %d reads allowed, %d writes denied, per-call latency max %d ms, "
                + "%d calls waited for Redis (deadline %d ms), %d skipped it; recovered %d ms after restart%n",
                reads, deniedWrites, latencies.stream().mapToLong(Long::longValue).max().orElse(0),
                backend.getFailureCount(), DEADLINE.toMillis(), backend.getSkippedCount(), recoveryMillis);
    }

    @Test
    void aDecisionGivenUpWhileRedisIsDownIsNotSentWhenRedisComesBack() throws Exception {
        Config config = new Config().setUseScriptCache(false); // Redisson links cancellation to its retries only then
        config.useSingleServer()
                .setAddress("redis://127.0.0.1:" + server.port())
                .setConnectionMinimumIdleSize(1)
                .setConnectTimeout(1_000)
                .setRetryAttempts(60)
                .setRetryDelay(new ConstantDelay(Duration.ofMillis(50)))
                .setReconnectionDelay(new EqualJitterDelay(Duration.ofMillis(20), Duration.ofMillis(200)));
        RedissonClient client = Redisson.create(config);
        clients.add(client);
        ResilientRateLimitBackend backend = resilient(client, 100);
        LimitSpec spec = new LimitSpec(5, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        assertThat(acquire(backend, "rl:{given-up}", spec, 1).allowed()).isTrue();

        server.stop();
        assertThatThrownBy(() -> acquire(backend, "rl:{given-up}", spec, 1))
                .isInstanceOfSatisfying(RateLimitBackendUnavailableException.class,
                        ex -> assertThat(ex.getReason()).isEqualTo(Reason.TIMEOUT));
        awaitCount(backend::getUnansweredCount, 1); // given up at the liveness time
        server.start(); // empty, with fresh command stats; Redisson would retry for 3 s
        Thread.sleep(1_500);

        CommandStats stats;
        try (RespClient cli = cli()) {
            stats = CommandStats.read(cli);
        }
        assertThat(stats.calls("eval") + stats.calls("evalsha")).as("commands: %s", stats).isZero();
    }

    @Test
    void errorsThatAreNotOutagesAreNotSwallowed() {
        RedissonClient client = client();
        // the limiter exists in Redis with rate 2 and is kept so (on-config-change=keep); a caller that asks
        // for 3 permits is refused by the script, whatever the client does
        client.getRateLimiter("rl:{drift}").trySetRate(org.redisson.api.RateType.OVERALL, 2, Duration.ofMinutes(1));
        ResilientRateLimitBackend backend = new ResilientRateLimitBackend(new RedissonRateLimitBackend(client,
                new BackendOptions(100, Duration.ofHours(1), ConfigChangePolicy.KEEP)), DEADLINE, 1, OPEN);
        LimitSpec declared = new LimitSpec(5, Duration.ofMinutes(1), RateLimitMode.OVERALL);

        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> acquire(backend, "rl:{drift}", declared, 3))
                    .isInstanceOf(IllegalArgumentException.class)
                    .isNotInstanceOf(RateLimitBackendUnavailableException.class)
                    .hasMessageContaining("Requested permits amount cannot exceed defined rate")
                    .hasMessageContaining("rate is 2");
        }
        assertThat(backend.getState()).isEqualTo(CircuitState.CLOSED);
        assertThat(backend.getFailureCount()).isZero();
    }

    private Service start(RedissonClient client) {
        AnnotationConfigApplicationContext ctx = new AnnotationConfigApplicationContext();
        ctx.registerBean(DefaultAdvisorAutoProxyCreator.class);
        ctx.registerBean(ResilientRateLimitBackend.class, () -> resilient(client, 5));
        AnnotationRateLimitOperationSource operations = new AnnotationRateLimitOperationSource(new KeyExpressionParser());
        ctx.registerBean(RateLimitAdvisor.class, () -> new RateLimitAdvisor(operations, new RateLimitInterceptor(
                operations, () -> DecisionStacks.around(ctx.getBean(ResilientRateLimitBackend.class)))));
        ctx.registerBean(Service.class);
        ctx.refresh();
        context = ctx;
        return ctx.getBean(Service.class);
    }

    private List<String> messages(Level level) {
        return logs.list.stream().filter(event -> event.getLevel() == level)
                .map(ILoggingEvent::getFormattedMessage).toList();
    }

    private static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    private static void sleepUntil(long startNanos, Duration offset) throws InterruptedException {
        long remaining = offset.toMillis() - millisSince(startNanos);
        if (remaining > 0) {
            Thread.sleep(remaining);
        }
    }

    private static CommandStats commandStats() {
        try (RespClient cli = cli()) {
            return CommandStats.read(cli);
        }
    }

    /** Keeps Redis busy for 250 ms (by its own clock): commands of other clients wait, none fails. */
    private static final String BUSY_250_MS = """
            local start = redis.call('TIME')
            local now
            repeat
              now = redis.call('TIME')
            until (now[1] - start[1]) * 1000000 + (now[2] - start[2]) >= 250000
            return 1""";

    /** Waits (bounded) until {@code counter} reaches {@code expected}: counted, not timed. */
    private static void awaitCount(java.util.function.LongSupplier counter, long expected) throws InterruptedException {
        for (int i = 0; i < 500 && counter.getAsLong() < expected; i++) {
            Thread.sleep(20);
        }
        assertThat(counter.getAsLong()).isEqualTo(expected);
    }

    @FunctionalInterface
    interface Attempt {
        boolean succeeded() throws Exception;
    }

    private static void awaitRecovery(Attempt attempt, Duration timeout) throws InterruptedException {
        long start = System.nanoTime();
        while (millisSince(start) < timeout.toMillis()) {
            try {
                if (attempt.succeeded()) {
                    return;
                }
            }
            catch (RateLimitBackendUnavailableException ex) {
                // not yet
            }
            catch (Exception ex) {
                throw new AssertionError("only RateLimitBackendUnavailableException may escape while recovering", ex);
            }
            Thread.sleep(20);
        }
        fail("no recovery within " + timeout);
    }

    public static class Service {

        private final AtomicInteger reads = new AtomicInteger();
        private final AtomicInteger writes = new AtomicInteger();

        public int reads() {
            return reads.get();
        }

        public int writes() {
            return writes.get();
        }

        @RateLimit(key = "'read:' + #id", rate = 2, interval = 60, onBackendError = BackendErrorPolicy.ALLOW)
        public String read(String id) {
            reads.incrementAndGet();
            return "read " + id;
        }

        @RateLimit(key = "'write:' + #id", rate = 100, interval = 60, onBackendError = BackendErrorPolicy.DENY)
        public String write(String id) {
            writes.incrementAndGet();
            return "wrote " + id;
        }
    }
}
