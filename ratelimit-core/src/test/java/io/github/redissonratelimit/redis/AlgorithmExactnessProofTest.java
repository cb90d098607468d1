package io.github.redissonratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
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
import io.github.redissonratelimit.test.redis.TestRedis;

/**
 * The promises of the token bucket and the fixed window, counted by Redis's own clock, as {@link ExactnessProofTest}
 * proves the sliding window's: three Redisson clients whose clocks are 3 s apart hammer one OVERALL limiter with the
 * defaults (Redis's clock, pipelining, the flood shortcut in front), and {@link AlgorithmGrantLog} records every grant
 * as Redis ran it. A token bucket grants at most {@code burst + rate * T / interval} permits over any span {@code T};
 * a fixed window at most {@code rate} in each window {@code [k * interval, (k + 1) * interval)}. Each proof runs on a
 * standalone server, the 3-master cluster and a master under Sentinel.
 */
class AlgorithmExactnessProofTest {

    private static final Duration SECOND = Duration.ofSeconds(1);
    /**
     * How much later than the script's own read of Redis's clock a grant's stamp can be: MONITOR stamps the
     * {@code TIME} call right after it ran (3-4 us later on Redis 7.0), and those few microseconds vary. A span
     * between two stamps can therefore be a little shorter than the one the script measured, and a hammered bucket
     * grants within microseconds of a refill often enough (many threads poll it) for a span from a full bucket's
     * first grant to read as 0.0001 permit over the bound. This tolerance is worth 0.05 permit at 50 permits per
     * second: it cannot hide a whole permit too many.
     */
    static final long STAMP_LAG_MICROS = 1_000;

    @RegisterExtension
    final RedissonClients clients = new RedissonClients();
    private final LimiterNaming naming = new LimiterNaming();

    static Stream<Arguments> deployments() {
        return ExactnessProofTest.deployments();
    }

    /** Backends with {@code options}, each on its own client with its own clock, the flood shortcut in front. */
    private List<RateLimitBackend> backends(RedisDeployment redis, BackendOptions options, Duration... clockOffsets) {
        return ProofBackends.create(clients, redis, options, clockOffsets);
    }

    private List<RateLimitBackend> skewedBackends(RedisDeployment redis) {
        return backends(redis, BackendOptions.DEFAULTS, Duration.ofSeconds(-3), Duration.ZERO, Duration.ofSeconds(3));
    }

    @ParameterizedTest
    @MethodSource("deployments")
    void aTokenBucketNeverGrantsMoreThanItsBurstPlusTheRateOverAnySpan(RedisDeployment redis) throws Exception {
        redis.flushAll();
        int rate = 50;
        int burst = 20;
        LimitSpec spec = new LimitSpec(rate, SECOND, RateLimitMode.OVERALL, LimitAlgorithm.tokenBucket(burst));
        String name = naming.limiterName("proof:bucket");
        Hammer hammer = new Hammer(skewedBackends(redis), 8);
        Duration run = Duration.ofMillis(4_000);

        List<AlgorithmGrantLog.Event> grants = hammered(redis, name, hammer, spec, run);

        double perMicro = rate / (SECOND.toMillis() * 1_000.0);
        Span worst = worstSpan(grants, perMicro);
        assertThat(worst.excess()).as("permits over any span beyond rate * span: %s", worst)
                .isLessThanOrEqualTo(burst + STAMP_LAG_MICROS * perMicro);
        // the full bucket's burst, then a permit at each refill: the bound is reached to within one permit
        assertThat(worst.excess()).as("the bound is tight: %s", worst).isGreaterThan(burst - 1);
        long expected = burst + rate * run.toMillis() / SECOND.toMillis();
        assertThat(hammer.granted()).as("grants in %d ms (the bound allows %d)", run.toMillis(), expected)
                .isGreaterThanOrEqualTo((int) (expected * 3 / 4));
        assertThat(hammer.longestRetryAfterMillis()).as("a rejection waits for one refill at most")
                .isLessThanOrEqualTo(SECOND.toMillis() / rate);
        System.out.printf("[proof bucket %s] %d per second, burst %d, 3 clients at -3 s, 0, +3 s x 8 threads, %d ms: "
                + "%d attempts, %d grants (per client %d / %d / %d); the tightest span: %d permits in %.3f ms (bound "
                + "%.4f), most permits beyond rate * span: %.4f (burst %d); longest retry-after %d ms%n", redis.describe(),
                rate, burst, run.toMillis(), hammer.attempts(), hammer.granted(), hammer.grantedBy(0),
                hammer.grantedBy(1), hammer.grantedBy(2), worst.permits(), worst.micros() / 1_000.0,
                burst + worst.micros() * perMicro, worst.excess(), burst, hammer.longestRetryAfterMillis());
    }

    @ParameterizedTest
    @MethodSource("deployments")
    void aFixedWindowNeverGrantsMoreThanItsRateInOneWindowOfRedisClock(RedisDeployment redis) throws Exception {
        redis.flushAll();
        int rate = 30;
        LimitSpec spec = new LimitSpec(rate, SECOND, RateLimitMode.OVERALL, LimitAlgorithm.fixedWindow());
        String name = naming.limiterName("proof:window");
        Hammer hammer = new Hammer(skewedBackends(redis), 8);
        Duration run = Duration.ofMillis(3_500);

        List<AlgorithmGrantLog.Event> grants = hammered(redis, name, hammer, spec, run);

        long interval = SECOND.toMillis();
        Map<Long, Long> perWindow = new TreeMap<>();
        for (AlgorithmGrantLog.Event grant : grants) {
            // counted in the window of the interval, aligned to the epoch, that holds Redis's clock when it ran
            assertThat(grant.windowEnd() - grant.windowStart()).isEqualTo(interval);
            assertThat(grant.windowStart() % interval).as("aligned to the epoch").isZero();
            assertThat(grant.windowStart()).as("the window holds the grant").isLessThanOrEqualTo(grant.serverMicros() / 1_000);
            assertThat((grant.serverMicros() - STAMP_LAG_MICROS) / 1_000).as("the window holds the grant")
                    .isLessThan(grant.windowEnd());
            perWindow.merge(grant.serverMicros() / 1_000 / interval, grant.permits(), Long::sum);
        }
        assertThat(perWindow.values()).as("permits per window of Redis's clock").allSatisfy(
                permits -> assertThat(permits).isLessThanOrEqualTo((long) rate));
        // the windows wholly inside the run are used up: the bound is reached
        assertThat(perWindow.values().stream().filter(permits -> permits == rate).count())
                .as("windows granting the whole rate: %s", perWindow).isGreaterThanOrEqualTo(2);
        assertThat(hammer.longestRetryAfterMillis()).as("a rejection waits for the window's end at most")
                .isLessThanOrEqualTo(interval);
        System.out.printf("[proof window %s] %d per second, 3 clients at -3 s, 0, +3 s x 8 threads, %d ms: %d attempts, "
                + "%d grants (per client %d / %d / %d); permits per window of Redis's clock: %s (rate %d); longest "
                + "retry-after %d ms%n", redis.describe(), rate, run.toMillis(), hammer.attempts(), hammer.granted(),
                hammer.grantedBy(0), hammer.grantedBy(1), hammer.grantedBy(2), perWindow.values(), rate,
                hammer.longestRetryAfterMillis());
    }

    /**
     * The proof above can fail: with {@code ratelimit.clock=client} a bucket is stamped by its caller's clock, and each
     * client whose clock is ahead of the last writer's finds a full bucket, so three clients taking turns (the one
     * 3 s behind, then the right one, then the one 3 s ahead) get three bursts where one is allowed.
     */
    @Test
    void clientClocksThreeSecondsApartBreakTheBucketsBoundInClientMode() throws Exception {
        RedisDeployment redis = TestRedis.endpoint();
        redis.flushAll();
        int rate = 50;
        int burst = 20;
        LimitSpec spec = new LimitSpec(rate, SECOND, RateLimitMode.OVERALL, LimitAlgorithm.tokenBucket(burst));
        String name = naming.limiterName("proof:bucket-client-clock");
        List<RateLimitBackend> backends = backends(redis, BackendOptions.DEFAULTS.withClock(LimiterClock.CLIENT),
                Duration.ofSeconds(-3), Duration.ZERO, Duration.ofSeconds(3));

        int granted = 0;
        long started = System.nanoTime();
        for (RateLimitBackend backend : backends) {
            Hammer hammer = new Hammer(List.of(backend), 4);
            hammer.run(name, spec, SECOND, null, null);
            granted += hammer.granted();
        }
        double elapsedMillis = (System.nanoTime() - started) / 1e6;

        double bound = burst + rate * elapsedMillis / SECOND.toMillis();
        assertThat((double) granted).as("grants in %.0f ms, at most %.1f with one clock", elapsedMillis, bound)
                .isGreaterThan(bound);
        System.out.printf("[proof bucket client clock] the same skew with ratelimit.clock=client, clients in turn: %d "
                + "grants in %.0f ms (the bound allows %.1f)%n", granted, elapsedMillis, bound);
    }

    /** The span check catches a single permit too many: a full burst, then one more than the refills allow. */
    @Test
    void theSpanCheckCatchesOnePermitTooMany() {
        double perMicro = 50 / 1e6;
        List<AlgorithmGrantLog.Event> exact = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            exact.add(new AlgorithmGrantLog.Event(1_000 + i, 1, 0, 0));
        }
        for (int refill = 1; refill <= 50; refill++) {
            exact.add(new AlgorithmGrantLog.Event(1_000 + refill * 20_000L, 1, 0, 0));
        }
        assertThat(worstSpan(exact, perMicro).excess()).isLessThanOrEqualTo(20 + STAMP_LAG_MICROS * perMicro);

        List<AlgorithmGrantLog.Event> oneTooMany = new ArrayList<>(exact);
        oneTooMany.add(30, new AlgorithmGrantLog.Event(1_000 + 10 * 20_000L + 5_000, 1, 0, 0));
        assertThat(worstSpan(oneTooMany, perMicro).excess()).isGreaterThan(20 + STAMP_LAG_MICROS * perMicro);
    }

    /** Hammers the limiter while logging its grants; checks that they are the ones the threads saw, and no more. */
    private static List<AlgorithmGrantLog.Event> hammered(RedisDeployment redis, String name, Hammer hammer,
            LimitSpec spec, Duration run) throws Exception {
        AlgorithmGrantLog log = AlgorithmGrantLog.start(redis, name);
        try {
            hammer.run(name, spec, run, null, null);
        }
        finally {
            log.close();
        }
        assertThat(log.refunds()).as("nothing given back").isEmpty();
        assertThat(AlgorithmGrantLog.permits(log.grants())).as("every grant the threads saw was made by Redis, and "
                + "no other").isEqualTo(hammer.granted());
        return log.grants();
    }

    /** The span between two grants (both included) over which the permits most exceed {@code rate * span}. */
    record Span(long permits, long micros, double excess) {
    }

    /** Every pair of grants, in the order Redis ran them (their stamps never go back). */
    static Span worstSpan(List<AlgorithmGrantLog.Event> grants, double permitsPerMicro) {
        for (int i = 1; i < grants.size(); i++) {
            assertThat(grants.get(i).serverMicros()).as("stamps in the order Redis ran the grants")
                    .isGreaterThanOrEqualTo(grants.get(i - 1).serverMicros());
        }
        Span worst = new Span(0, 0, Double.NEGATIVE_INFINITY);
        for (int first = 0; first < grants.size(); first++) {
            long permits = 0;
            for (int last = first; last < grants.size(); last++) {
                permits += grants.get(last).permits();
                long micros = grants.get(last).serverMicros() - grants.get(first).serverMicros();
                double excess = permits - micros * permitsPerMicro;
                if (excess > worst.excess()) {
                    worst = new Span(permits, micros, excess);
                }
            }
        }
        return worst;
    }
}
