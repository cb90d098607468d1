package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.RedisDeployment;
import io.github.redissonratelimit.test.redis.RedissonClients;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * The token bucket's and the fixed window's promises through the faults {@link ExactnessProofTest} puts the sliding
 * window through, counted by Redis's own clock: a rate lowered by a new deployment while demand continues
 * ({@code on-config-change=update}), and the limiter's one key lost mid-run (eviction, a {@code DEL}, a failover to a
 * replica that missed it). Two clients hammer one OVERALL limiter with the defaults; every grant is a write of the
 * limiter's {@code :value} key by its script ({@link AlgorithmGrantLog#writes}), stamped with the {@code TIME} that
 * script read, and holds the permits each call asks for. Each proof runs on a standalone server, the 3-master cluster and a master under
 * Sentinel.
 */
class AlgorithmFaultProofTest {

    private static final Duration SECOND = Duration.ofSeconds(1);

    /** MONITOR stamps a TIME call a few µs after it ran: see {@link AlgorithmExactnessProofTest#STAMP_LAG_MICROS}. */
    private static final long STAMP_LAG_MICROS = AlgorithmExactnessProofTest.STAMP_LAG_MICROS;

    @RegisterExtension
    final RedissonClients clients = new RedissonClients();
    private final LimiterNaming naming = new LimiterNaming();

    static Stream<Arguments> deployments() {
        return ExactnessProofTest.deployments();
    }

    private List<RateLimitBackend> backends(RedisDeployment redis, int count) {
        Duration[] sameClock = new Duration[count];
        Arrays.fill(sameClock, Duration.ZERO);
        return ProofBackends.create(clients, redis, BackendOptions.DEFAULTS, sameClock);
    }

    @ParameterizedTest
    @MethodSource("deployments")
    void aTokenBucketLoweredWhileDemandContinuesHoldsTheNewBoundFromTheChangeOn(RedisDeployment redis) throws Exception {
        redis.flushAll();
        LimitSpec ten = new LimitSpec(10, SECOND, RateLimitMode.OVERALL, LimitAlgorithm.tokenBucket(10));
        LimitSpec six = new LimitSpec(6, SECOND, RateLimitMode.OVERALL, LimitAlgorithm.tokenBucket(6));
        String name = naming.limiterName("proof:bucket-lowered");
        RateLimitBackend newDeployment = backends(redis, 1).get(0);
        AtomicLong changedAt = new AtomicLong();
        Change change = new Change(6);

        List<Grant> grants = hammered(redis, name, ten, 2, Duration.ofMillis(4_500), Duration.ofMillis(1_500),
                change, () -> {
                    // its first sight applies 6 (on-config-change=update)
                    change.decided(acquire(newDeployment, name, six, 2).allowed());
                    changedAt.set(serverMicros(redis, name));
                });

        List<Grant> before = between(grants, 0, changedAt.get());
        List<Grant> after = between(grants, changedAt.get(), Long.MAX_VALUE);
        double beforeExcess = worstExcess(before, 10);
        double afterExcess = worstExcess(after, 6);
        assertThat(beforeExcess).as("before the change, permits beyond 10 per second over any span")
                .isLessThanOrEqualTo(10 + STAMP_LAG_MICROS * 10 / 1e6);
        assertThat(afterExcess).as("from the change on, permits beyond 6 per second over any span")
                .isLessThanOrEqualTo(6 + STAMP_LAG_MICROS * 6 / 1e6);
        assertThat(permits(after)).as("and the bucket still grants").isGreaterThanOrEqualTo(12);
        System.out.printf("[proof bucket lowered %s] bucket of 10 per second -> 6, grants of 2 permits: most permits "
                + "beyond rate * span before %.4f (burst 10), from the change on %.4f (burst 6); %d permits after the "
                + "change%n", redis.describe(), beforeExcess, afterExcess, permits(after));
    }

    /**
     * A fixed window keeps its config in its one key, which expires at the window's end: the new rate holds for the
     * rest of the window it was deployed in, and from the window after the last instance declaring the old one is
     * gone; in between, each window holds what the instance that opened it declared (never more than either rate).
     */
    @ParameterizedTest
    @MethodSource("deployments")
    void aFixedWindowLoweredWhileDemandContinuesHoldsTheNewRateFromTheChangeOn(RedisDeployment redis) throws Exception {
        redis.flushAll();
        LimitSpec ten = new LimitSpec(10, SECOND, RateLimitMode.OVERALL, LimitAlgorithm.fixedWindow());
        LimitSpec six = new LimitSpec(6, SECOND, RateLimitMode.OVERALL, LimitAlgorithm.fixedWindow());
        String name = naming.limiterName("proof:window-lowered");
        Hammer old = new Hammer(backends(redis, 2), 3, 2);
        Hammer renewed = new Hammer(backends(redis, 2), 3, 2);
        RateLimitBackend newDeployment = backends(redis, 1).get(0);
        AtomicLong changedAt = new AtomicLong();
        Change change = new Change(6);
        ExecutorService background = Executors.newSingleThreadExecutor();
        AtomicReference<Future<?>> renewedRun = new AtomicReference<>();
        long oldGoneAt;

        AlgorithmGrantLog log = AlgorithmGrantLog.start(redis, name);
        try {
            old.run(name, ten, Duration.ofMillis(3_000), Duration.ofMillis(1_500), () -> {
                change.decided(acquire(newDeployment, name, six, 2).allowed());
                changedAt.set(serverMicros(redis, name));
                renewedRun.set(background.submit(() -> {
                    renewed.run(name, six, Duration.ofMillis(4_000), null, null);
                    return null;
                }));
            });
            oldGoneAt = serverMicros(redis, name);
            renewedRun.get().get();
        }
        finally {
            log.close();
            background.shutdownNow();
        }
        // Besides the change, each renewed instance's first call applies 6 too: when it lands in a window an old
        // instance opened with 10 that already holds 6 or more, it is refused and writes the new rate with the count
        // it found, taking nothing (a refused change still applies).
        List<Grant> grants = log.writes().stream().filter(write -> write.permits() != 0)
                .map(write -> new Grant(write.serverMicros(), write.permits(), write.windowSecond())).toList();
        List<AlgorithmGrantLog.Write> tookNothing = log.writes().stream().filter(write -> write.permits() == 0)
                .toList();
        assertThat(tookNothing).as("writes that took nothing: a change applied on a refused call, at most one per "
                + "instance declaring the new rate").hasSizeLessThanOrEqualTo(1 + 2)
                .allSatisfy(write -> assertThat(write.rate()).isEqualTo(6));
        if (!change.granted()) {
            assertThat(tookNothing).as("the refused change wrote the new config").isNotEmpty();
        }
        assertThat(grants).as("grants of 2 permits each").allSatisfy(grant -> assertThat(grant.permits()).isEqualTo(2));
        assertThat((long) grants.size()).as("every grant the threads saw was a write of the limiter's key, and no other")
                .isEqualTo(old.granted() + renewed.granted() + (change.granted() ? 1L : 0L));

        long changeWindow = changedAt.get() / 1_000_000;
        long oldGoneWindow = oldGoneAt / 1_000_000;
        Map<Long, Long> perWindow = perWindow(grants);
        long beforeInChangeWindow = permits(inWindow(grants, changeWindow, 0, changedAt.get()));
        long afterInChangeWindow = permits(inWindow(grants, changeWindow, changedAt.get(), Long.MAX_VALUE));
        perWindow.forEach((window, permits) -> assertThat(permits)
                .as("window %d (the change in window %d, the old instances gone in window %d): %s", window,
                        changeWindow, oldGoneWindow, perWindow)
                .isLessThanOrEqualTo(window > oldGoneWindow ? 6 : 10));
        // the count of the window the change falls in is kept: the new rate is what it may reach
        assertThat(afterInChangeWindow).as("granted in the change's window after it, %d before", beforeInChangeWindow)
                .isLessThanOrEqualTo(Math.max(0, 6 - beforeInChangeWindow));
        assertThat(perWindow.entrySet().stream().filter(entry -> entry.getKey() > oldGoneWindow
                && entry.getValue() == 6).count()).as("windows granting the new rate: %s", perWindow)
                .isGreaterThanOrEqualTo(1);
        System.out.printf("[proof window lowered %s] fixed window of 10 per second -> 6, grants of 2 permits: permits "
                + "per window of Redis's clock %s, the change in window %d (%d before it, %d after), the old instances "
                + "gone in window %d%n", redis.describe(), perWindow, changeWindow, beforeInChangeWindow,
                afterInChangeWindow, oldGoneWindow);
    }

    @ParameterizedTest
    @MethodSource("deployments")
    void aLostBucketStartsFullAndHoldsItsBoundFromTheLossOn(RedisDeployment redis) throws Exception {
        redis.flushAll();
        LimitSpec spec = new LimitSpec(10, SECOND, RateLimitMode.OVERALL, LimitAlgorithm.tokenBucket(5));
        String name = naming.limiterName("proof:bucket-lost");
        long[] loss = new long[2];

        List<Grant> grants = hammered(redis, name, spec, 1, Duration.ofMillis(3_500), Duration.ofMillis(1_300),
                null, () -> deleteValue(redis, name, loss));

        // a grant between the two reads of the clock around the DEL may be on either side: in neither list
        double beforeExcess = worstExcess(between(grants, 0, loss[0]), 10);
        double afterExcess = worstExcess(between(grants, loss[1], Long.MAX_VALUE), 10);
        double acrossExcess = worstExcess(grants, 10);
        double lag = STAMP_LAG_MICROS * 10 / 1e6;
        assertThat(beforeExcess).as("before the loss").isLessThanOrEqualTo(5 + lag);
        assertThat(afterExcess).as("from the loss on: a full bucket, then the refills").isLessThanOrEqualTo(5 + lag);
        // the loss forgets the permits out at that moment, at most a burst: as a reset, never more
        assertThat(acrossExcess).as("across the loss").isLessThanOrEqualTo(10 + lag);
        assertThat(permits(between(grants, loss[1], Long.MAX_VALUE))).as("granted after the loss")
                .isGreaterThanOrEqualTo(10);
        System.out.printf("[proof bucket lost %s] 10 per second, burst 5, key deleted mid-run: most permits beyond rate "
                + "* span before the loss %.4f, from the loss on %.4f, across it %.4f%n", redis.describe(), beforeExcess,
                afterExcess, acrossExcess);
    }

    @ParameterizedTest
    @MethodSource("deployments")
    void aLostWindowStartsEmptyAndHoldsTheRateInTheWindowsAfter(RedisDeployment redis) throws Exception {
        redis.flushAll();
        LimitSpec spec = new LimitSpec(10, SECOND, RateLimitMode.OVERALL, LimitAlgorithm.fixedWindow());
        String name = naming.limiterName("proof:window-lost");
        long[] loss = new long[2];

        List<Grant> grants = hammered(redis, name, spec, 1, Duration.ofMillis(3_500), Duration.ofMillis(1_300),
                null, () -> deleteValue(redis, name, loss));

        long lossWindow = loss[1] / 1_000_000;
        Map<Long, Long> perWindow = perWindow(grants);
        // the window of the loss may hold its grants before and a fresh rate after, as after a reset
        perWindow.forEach((window, permits) -> assertThat(permits)
                .as("window %d (the loss in window %d): %s", window, lossWindow, perWindow)
                .isLessThanOrEqualTo(window >= loss[0] / 1_000_000 && window <= lossWindow ? 20 : 10));
        assertThat(permits(inWindow(grants, lossWindow, loss[1], Long.MAX_VALUE)))
                .as("granted in the loss's window after it: an empty window").isLessThanOrEqualTo(10);
        assertThat(perWindow.entrySet().stream().filter(entry -> entry.getKey() > lossWindow
                && entry.getValue() == 10).count()).as("windows after the loss granting the rate: %s", perWindow)
                .isGreaterThanOrEqualTo(1);
        System.out.printf("[proof window lost %s] 10 per second, key deleted mid-run: permits per window of Redis's "
                + "clock %s, the loss in window %d%n", redis.describe(), perWindow, lossWindow);
    }

    /**
     * One grant of {@code permits}, at the time (µs of Redis's clock) MONITOR stamped its script's clock read, in the
     * fixed window that began at {@code windowSecond} as the script read the clock (-1: not a fixed window).
     */
    record Grant(long micros, long permits, long windowSecond) {

        /** The second of Redis's clock the grant counts in: its fixed window's, else its stamp's. */
        long second() {
            return windowSecond >= 0 ? windowSecond : micros / 1_000_000;
        }
    }

    /**
     * Two clients x 3 threads ask {@code permits} at a time for {@code run}; {@code midRun} after {@code midRunAfter};
     * {@code change} (null when {@code midRun} decides nothing) tells how its one decision went.
     */
    private List<Grant> hammered(RedisDeployment redis, String name, LimitSpec spec, long permits, Duration run,
            Duration midRunAfter, Change change, Runnable midRun) throws Exception {
        Hammer hammer = new Hammer(backends(redis, 2), 3, permits);
        AlgorithmGrantLog log = AlgorithmGrantLog.start(redis, name);
        try {
            hammer.run(name, spec, run, midRunAfter, midRun);
        }
        finally {
            log.close();
        }
        List<Grant> grants = grants(log, permits, change);
        assertThat((long) grants.size()).as("every grant the threads saw was a write of the limiter's key, and no other")
                .isEqualTo(hammer.granted() + (change != null && change.granted() ? 1L : 0L));
        return grants;
    }

    /**
     * The one decision of a new deployment that brings a config change: whether it was granted, and the new rate. A
     * refused change writes the key too (the new config holds from then on), which is no grant: the first write of
     * the new rate, when the change was refused.
     */
    record Change(AtomicInteger grantedHolder, long newRate) {

        Change(long newRate) {
            this(new AtomicInteger(-1), newRate);
        }

        boolean granted() {
            return grantedHolder.get() == 1;
        }

        void decided(boolean allowed) {
            grantedHolder.set(allowed ? 1 : 0);
        }
    }

    /**
     * The key's writes as grants of {@code permits} each (each grant writes it, and nothing else does here), without
     * the write of a refused {@code change} (may be null).
     */
    private static List<Grant> grants(AlgorithmGrantLog log, long permits, Change change) {
        List<Grant> grants = new ArrayList<>();
        boolean refusedChangeSeen = change == null || change.granted();
        for (AlgorithmGrantLog.Write write : log.writes()) {
            if (!refusedChangeSeen && write.rate() == change.newRate()) {
                refusedChangeSeen = true;
                continue;
            }
            grants.add(new Grant(write.serverMicros(), permits, write.windowSecond()));
        }
        assertThat(refusedChangeSeen).as("the refused change wrote the new config").isTrue();
        return grants;
    }

    /** The most permits over any span between two grants (both included) beyond {@code perSecond * span}. */
    private static double worstExcess(List<Grant> grants, long perSecond) {
        double worst = 0;
        for (int first = 0; first < grants.size(); first++) {
            long permits = 0;
            for (int last = first; last < grants.size(); last++) {
                permits += grants.get(last).permits();
                double span = grants.get(last).micros() - grants.get(first).micros();
                worst = Math.max(worst, permits - span * perSecond / 1e6);
            }
        }
        return worst;
    }

    /**
     * Permits per second of Redis's clock, each grant in the window its script counted it in: that window holds the
     * grant's stamp (a stamp may lag the script's clock read into the next second by at most the stamp's lag).
     */
    private static Map<Long, Long> perWindow(List<Grant> grants) {
        assertThat(grants).as("each grant stamped within its window").allSatisfy(grant -> assertThat(grant.micros())
                .isBetween(grant.second() * 1_000_000, (grant.second() + 1) * 1_000_000 + STAMP_LAG_MICROS));
        Map<Long, Long> perWindow = new TreeMap<>();
        grants.forEach(grant -> perWindow.merge(grant.second(), grant.permits(), Long::sum));
        return perWindow;
    }

    private static List<Grant> between(List<Grant> grants, long fromMicros, long toMicros) {
        return grants.stream().filter(grant -> grant.micros() >= fromMicros && grant.micros() < toMicros).toList();
    }

    /** The grants counted in the window of second {@code window}, stamped from {@code fromMicros} until {@code toMicros}. */
    private static List<Grant> inWindow(List<Grant> grants, long window, long fromMicros, long toMicros) {
        return between(grants, fromMicros, toMicros).stream().filter(grant -> grant.second() == window).toList();
    }

    private static long permits(List<Grant> grants) {
        return grants.stream().mapToLong(Grant::permits).sum();
    }

    /** Deletes the limiter's one key; {@code at}: Redis's clock (µs) just before and just after. */
    private static void deleteValue(RedisDeployment redis, String name, long[] at) {
        at[0] = serverMicros(redis, name);
        try (RespClient cli = redis.cliFor(name)) {
            cli.command("DEL", LimiterNaming.valueKey(name));
        }
        at[1] = serverMicros(redis, name);
    }

    private static long serverMicros(RedisDeployment redis, String key) {
        try (RespClient cli = redis.cliFor(key)) {
            List<?> time = (List<?>) cli.command("TIME");
            return Long.parseLong(time.get(0).toString()) * 1_000_000 + Long.parseLong(time.get(1).toString());
        }
    }
}
