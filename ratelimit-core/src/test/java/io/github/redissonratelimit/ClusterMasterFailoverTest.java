package io.github.redissonratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisClusterDownException;
import org.slf4j.LoggerFactory;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.outcome.CircuitState;
import io.github.redissonratelimit.resilience.ResilientRateLimitBackend;
import io.github.redissonratelimit.test.redis.HeldPermits;
import io.github.redissonratelimit.test.redis.RedisClusterProcess;

/**
 * A master of a Redis Cluster with replicas is SIGKILLed while two instances (two Redisson clients) decide for
 * users spread over every master. The users of the healthy masters must get a decision every time (no
 * {@link RateLimitBackendUnavailableException}, no skipped call), and the users of the dead master theirs again
 * once its replica is promoted. Prints the figures of {@code docs/operations.md} ("Losing a master").
 */
class ClusterMasterFailoverTest {

    private static final int KILLED_SHARD = 0;
    private static final int USERS = 60;
    /** Per instance, callers of the healthy masters' users, and of the dead master's (which wait up to the deadline). */
    private static final int HEALTHY_THREADS = 2;
    private static final int DEAD_THREADS = 4;
    /** Decisions in a row each instance must get for the dead master's users to count as recovered. */
    private static final int RECOVERED_AFTER = 20;
    private static final LimitSpec SPEC = new LimitSpec(40, Duration.ofHours(1), RateLimitMode.OVERALL);

    private static RedisClusterProcess cluster;

    @AfterEach
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** {@code cluster-require-full-coverage no}: the healthy masters serve throughout. */
    @Test
    void aDeadMasterCostsOnlyTheDecisionsOfItsOwnKeys() throws Exception {
        cluster = RedisClusterProcess.start(3, 1, false);
        List<Instance> instances = failover();
        for (Instance instance : instances) {
            assertThat(instance.healthy.degraded.sum()).as("degraded answers for healthy masters' keys: %s",
                    instance.healthy.errors).isZero();
        }
    }

    /**
     * {@code cluster-require-full-coverage yes} (Redis's default): from the moment the cluster marks the master
     * failed until its replica is promoted, every master refuses every command ({@code CLUSTERDOWN}); the healthy
     * masters' keys lose those decisions, to Redis's refusals, never to the dead master's timeouts.
     */
    @Test
    void withFullCoverageRequiredEveryMasterRefusesUntilThePromotion() throws Exception {
        cluster = RedisClusterProcess.start(3, 1, true);
        List<Instance> instances = failover();
        for (Instance instance : instances) {
            assertThat(instance.healthy.failed.sum()).as("healthy masters' keys failed by other than CLUSTERDOWN: %s",
                    instance.healthy.errors).isEqualTo(instance.healthy.clusterDown.sum());
        }
    }

    private List<Instance> failover() throws Exception {
        LimiterNaming naming = new LimiterNaming();
        List<String> names = new ArrayList<>();
        for (int user = 0; user < USERS; user++) {
            names.add(naming.limiterName("user:" + user));
        }
        assertThat(names.stream().map(cluster::nodeOf).distinct()).hasSize(3);
        List<String> healthyNames = names.stream().filter(name -> cluster.nodeOf(name) != KILLED_SHARD).toList();
        List<String> deadNames = names.stream().filter(name -> cluster.nodeOf(name) == KILLED_SHARD).toList();
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        List<Logger> loggers = List.of(logger("io.github.redissonratelimit.redis.ClusterMasters"),
                logger(ResilientRateLimitBackend.class.getName()));
        loggers.forEach(logger -> logger.addAppender(logs));
        List<Instance> instances = List.of(new Instance(cluster.newRedissonClient()),
                new Instance(cluster.newRedissonClient()));
        ExecutorService threads = Executors.newFixedThreadPool(2 * (HEALTHY_THREADS + DEAD_THREADS));
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong killedAt = new AtomicLong(Long.MAX_VALUE);
        try {
            List<Future<?>> load = new ArrayList<>();
            for (Instance instance : instances) {
                for (int t = 0; t < HEALTHY_THREADS; t++) {
                    int offset = t;
                    load.add(threads.submit(() -> instance.decide(healthyNames, offset, HEALTHY_THREADS, running,
                            killedAt)));
                }
                for (int t = 0; t < DEAD_THREADS; t++) {
                    int offset = t;
                    load.add(threads.submit(() -> instance.decide(deadNames, offset, DEAD_THREADS, running, killedAt)));
                }
            }
            awaitDecisions(instances, 300);
            killedAt.set(System.nanoTime());
            int deadPort = cluster.killMaster(KILLED_SHARD);
            int promotedPort = cluster.awaitPromotion(KILLED_SHARD, Duration.ofSeconds(30));
            long promotedAt = System.nanoTime();
            for (Instance instance : instances) {
                instance.awaitRecovery(Duration.ofSeconds(40));
            }
            running.set(false);
            for (Future<?> thread : load) {
                thread.get(30, TimeUnit.SECONDS);
            }

            for (Instance instance : instances) {
                assertThat(instance.healthy.decisionsAfterKill.sum()).as("healthy decisions after the kill")
                        .isGreaterThan(0);
                assertThat(instance.dead.decisionsAfterRecovery.sum()).isGreaterThanOrEqualTo(RECOVERED_AFTER);
                awaitClosedCircuits(instance.resilient, deadNames.get(0), promotedPort);
            }
            assertHealthyGrantsAsAllowed(names, instances);
            assertLogsNameTheMasterThatAnswers(logs, deadPort, promotedPort);
            report(instances, deadPort, promotedPort, (promotedAt - killedAt.get()) / 1_000_000);
            return instances;
        }
        finally {
            loggers.forEach(logger -> logger.detachAppender(logs));
            running.set(false);
            threads.shutdownNow();
            instances.forEach(instance -> instance.client.shutdown());
        }
    }

    /**
     * The grants Redis recorded (the permits its ZSET members hold, stamped by Redis's clock) for each healthy master's user:
     * exactly the calls both instances were allowed, and never above the limit.
     */
    private static void assertHealthyGrantsAsAllowed(List<String> names, List<Instance> instances) {
        for (String name : names) {
            if (cluster.nodeOf(name) != KILLED_SHARD) {
                long grants = HeldPermits.of(cluster, LimiterNaming.permitsKey(name));
                long allowed = instances.stream().mapToLong(instance -> instance.allowedFor(name)).sum();
                assertThat(grants).as(name).isEqualTo(allowed).isBetween(1L, SPEC.rate());
            }
        }
    }

    /**
     * The promoted replica is named as the new master of the slots, and no line says the dead master answers again
     * (its replica does, under its own address).
     */
    private static void assertLogsNameTheMasterThatAnswers(ListAppender<ILoggingEvent> logs, int deadPort,
            int promotedPort) {
        List<String> lines = logs.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        String dead = "127.0.0.1:" + deadPort;
        String promoted = "127.0.0.1:" + promotedPort;
        assertThat(lines).anySatisfy(line -> assertThat(line).contains("Redis Cluster masters now")
                .contains("new: [" + promoted + "]").contains("no longer holding slots: [" + dead + "]"));
        assertThat(lines).noneSatisfy(line -> assertThat(line).contains("Redis master " + dead + " answers"));
    }

    private static Logger logger(String name) {
        return (Logger) LoggerFactory.getLogger(name);
    }

    private static void awaitDecisions(List<Instance> instances, long decisions) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (instances.stream().anyMatch(instance -> instance.healthy.decisions.sum() < decisions)
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    /** The dead master's circuit is forgotten, and its users' decisions go to the promoted replica's circuit. */
    private static void awaitClosedCircuits(ResilientRateLimitBackend resilient, String deadMastersUser,
            int promotedPort) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        String promoted = "127.0.0.1:" + promotedPort;
        while ((resilient.getState() != CircuitState.CLOSED || !resilient.getMasterStates().containsKey(promoted))
                && System.nanoTime() < deadline) {
            resilient.acquire(deadMastersUser, SPEC, 1).toCompletableFuture().handle((decision, error) -> null).join();
            Thread.sleep(50);
        }
        assertThat(resilient.getMasterStates()).as("per-master circuits after the failover")
                .doesNotContainValue(CircuitState.OPEN).containsKey(promoted);
        assertThat(resilient.getState()).isEqualTo(CircuitState.CLOSED);
    }

    private static void report(List<Instance> instances, int deadPort, int promotedPort, long promotionMillis) {
        StringBuilder text = new StringBuilder(cluster.describe() + ": killed master 127.0.0.1:" + deadPort + "; replica 127.0.0.1:"
                + promotedPort + " promoted after " + promotionMillis + " ms\n");
        for (int i = 0; i < instances.size(); i++) {
            Instance instance = instances.get(i);
            text.append("instance ").append(i + 1).append(": healthy masters' keys ")
                    .append(instance.healthy.decisionsAfterKill.sum()).append(" decisions after the kill, ")
                    .append(instance.healthy.degraded.sum()).append(" degraded (")
                    .append(instance.healthy.clusterDown.sum()).append(" CLUSTERDOWN, ")
                    .append(instance.healthy.skipped.sum()).append(" skipped); dead master's keys ")
                    .append(instance.dead.degraded.sum()).append(" degraded (")
                    .append(instance.dead.failed.sum()).append(" failed or timed out, ")
                    .append(instance.dead.skipped.sum()).append(" skipped by the open circuit), recovered ")
                    .append(instance.recoveredAfterMillis).append(" ms after the kill\n");
        }
        System.out.print(text);
    }

    /** One application instance: its own Redisson client, backend and circuits, and what its callers got. */
    private static final class Instance {

        final RedissonClient client;
        final ResilientRateLimitBackend resilient;
        final Answers healthy = new Answers();
        final Answers dead = new Answers();
        private final Map<String, LongAdder> allowed = new ConcurrentHashMap<>();
        volatile long recoveredAfterMillis = -1;
        private final AtomicLong deadInARow = new AtomicLong();

        Instance(RedissonClient client) {
            this.client = client;
            // a generous deadline: the healthy masters' answers must all count, on 2 busy CPUs
            this.resilient = new ResilientRateLimitBackend(new RedissonRateLimitBackend(client), Duration.ofSeconds(5),
                    5, Duration.ofSeconds(1));
        }

        Void decide(List<String> names, int offset, int step, AtomicBoolean running, AtomicLong killedAt) {
            for (int i = offset; running.get(); i += step) {
                String name = names.get(i % names.size());
                int shard = cluster.nodeOf(name);
                boolean afterKill = System.nanoTime() > killedAt.get();
                Answers answers = shard == KILLED_SHARD ? dead : healthy;
                try {
                    Decision decision = resilient.acquire(name, SPEC, 1).toCompletableFuture().get();
                    answers.decisions.increment();
                    if (afterKill) {
                        answers.decisionsAfterKill.increment();
                    }
                    if (decision.allowed()) {
                        allowed.computeIfAbsent(name, ignored -> new LongAdder()).increment();
                    }
                    if (shard == KILLED_SHARD && afterKill && deadInARow.incrementAndGet() >= RECOVERED_AFTER) {
                        if (recoveredAfterMillis < 0) {
                            recoveredAfterMillis = (System.nanoTime() - killedAt.get()) / 1_000_000;
                        }
                        dead.decisionsAfterRecovery.increment();
                    }
                }
                catch (ExecutionException | CompletionException ex) {
                    answers.degraded.increment();
                    if (answers.errors.size() < 5) {
                        answers.errors.add(ex.getCause() + " caused by " + ex.getCause().getCause());
                    }
                    if (shard == KILLED_SHARD) {
                        deadInARow.set(0);
                    }
                    if (ex.getCause() instanceof RateLimitBackendUnavailableException unavailable) {
                        (unavailable.getReason() == RateLimitBackendUnavailableException.Reason.CIRCUIT_OPEN
                                ? answers.skipped : answers.failed).increment();
                        if (unavailable.getCause() instanceof RedisClusterDownException) {
                            answers.clusterDown.increment();
                        }
                    }
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
            return null;
        }

        long allowedFor(String name) {
            LongAdder count = allowed.get(name);
            return count == null ? 0 : count.sum();
        }

        void awaitRecovery(Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (dead.decisionsAfterRecovery.sum() < RECOVERED_AFTER && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        }
    }

    private static final class Answers {

        final LongAdder decisions = new LongAdder();
        final LongAdder decisionsAfterKill = new LongAdder();
        final LongAdder decisionsAfterRecovery = new LongAdder();
        final LongAdder degraded = new LongAdder();
        final LongAdder failed = new LongAdder();
        final LongAdder clusterDown = new LongAdder();
        final LongAdder skipped = new LongAdder();
        final List<String> errors = new CopyOnWriteArrayList<>();
    }
}
