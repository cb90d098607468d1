package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LocalRejectionCache;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.RedisClusterProcess;
import io.github.redissonratelimit.test.redis.RedisDeployment;
import io.github.redissonratelimit.test.redis.RedisSentinelProcess;
import io.github.redissonratelimit.test.redis.RedissonClients;
import io.github.redissonratelimit.test.redis.RespClient;
import io.github.redissonratelimit.test.redis.TestRedis;

/**
 * The promise, counted by Redis's own clock: in any window of {@code interval}, at most {@code rate} permits
 * are granted, however many instances share the limit, whatever their clocks say, while the rate is lowered
 * and while the limiter's keys are lost. Several Redisson clients hammer one OVERALL limiter with the
 * defaults (pipelining and the flood shortcut on); {@link GrantLog} records every grant as Redis ran it
 * ({@code MONITOR} on the master that holds the limiter), whose stamp is now Redis's {@code TIME}.
 * Each proof runs on a standalone server, the 3-master cluster and a master under Sentinel.
 */
class ExactnessProofTest {

    private static final Duration SECOND = Duration.ofSeconds(1);

    @RegisterExtension
    final RedissonClients clients = new RedissonClients();
    private final LimiterNaming naming = new LimiterNaming();

    static Stream<Arguments> deployments() {
        return Stream.of(Arguments.of(Named.of("standalone", TestRedis.endpoint())),
                Arguments.of(Named.of("cluster", RedisClusterProcess.shared())),
                Arguments.of(Named.of("sentinel", RedisSentinelProcess.shared())));
    }

    /** Backends with the defaults, the flood shortcut in front, each on its own client with its own clock. */
    private List<RateLimitBackend> backends(RedisDeployment redis, BackendOptions options, Duration... clockOffsets) {
        return ProofBackends.create(clients, redis, options, clockOffsets);
    }

    @ParameterizedTest
    @MethodSource("deployments")
    void clientClocksThreeSecondsApartNeverLetAWindowHoldMoreThanTheRate(RedisDeployment redis) throws Exception {
        redis.flushAll();
        int rate = 50;
        LimitSpec spec = new LimitSpec(rate, SECOND, RateLimitMode.OVERALL);
        String name = naming.limiterName("proof:skew");
        List<RateLimitBackend> backends = backends(redis, BackendOptions.DEFAULTS, Duration.ofSeconds(-3), Duration.ZERO,
                Duration.ofSeconds(3));
        Hammer hammer = new Hammer(backends, 8);
        Duration run = Duration.ofSeconds(5);

        GrantLog log = GrantLog.start(redis, name);
        try {
            hammer.run(name, spec, run, null, null);
        }
        finally {
            log.close();
        }

        List<GrantLog.Event> grants = log.grants();
        assertThat(grants).as("every grant the threads saw was made by Redis, and no other").hasSize(hammer.granted());
        assertThat(GrantLog.maxInAnyWindow(grants, SECOND.toMillis())).as("permits in any 1000 ms window")
                .isLessThanOrEqualTo(rate);
        long fairShare = rate * run.toSeconds() / backends.size();
        for (int client = 0; client < backends.size(); client++) {
            assertThat(hammer.grantedBy(client)).as("grants of the client %d, fair share %d", client, fairShare)
                    .isGreaterThanOrEqualTo((int) (fairShare / 3));
        }
        assertThat(hammer.longestRetryAfterMillis()).as("no retry-after beyond one interval")
                .isLessThanOrEqualTo(SECOND.toMillis());
        System.out.printf("[proof skew %s] 3 clients at -3 s, 0, +3 s x 8 threads, %d ms: %d attempts, %d grants "
                + "(per client %d / %d / %d); most in any 1000 ms window: %d (rate %d); longest retry-after %d ms%n",
                redis.describe(), run.toMillis(), hammer.attempts(), grants.size(), hammer.grantedBy(0), hammer.grantedBy(1),
                hammer.grantedBy(2), GrantLog.maxInAnyWindow(grants, SECOND.toMillis()), rate, hammer.longestRetryAfterMillis());
    }

    @ParameterizedTest
    @MethodSource("deployments")
    void aRateLoweredWhileDemandContinuesHoldsFromTheChangeOn(RedisDeployment redis) throws Exception {
        redis.flushAll();
        LimitSpec ten = new LimitSpec(10, SECOND, RateLimitMode.OVERALL);
        LimitSpec six = new LimitSpec(6, SECOND, RateLimitMode.OVERALL);
        String name = naming.limiterName("proof:lowered");
        Hammer hammer = new Hammer(backends(redis, BackendOptions.DEFAULTS, Duration.ZERO, Duration.ZERO), 4, 2);
        RateLimitBackend newDeployment = backends(redis, BackendOptions.DEFAULTS, Duration.ZERO).get(0);
        AtomicLong changedBy = new AtomicLong();

        GrantLog log = GrantLog.start(redis, name);
        try {
            hammer.run(name, ten, Duration.ofMillis(4_500), Duration.ofMillis(1_500), () -> {
                acquire(newDeployment, name, six, 2); // its first sight applies 6 (on-config-change=update)
                changedBy.set(serverMillis(redis, name));
            });
        }
        finally {
            log.close();
        }

        List<GrantLog.Event> grants = log.grants();
        List<GrantLog.Event> before = GrantLog.between(grants, 0, changedBy.get() - SECOND.toMillis());
        List<GrantLog.Event> after = GrantLog.between(grants, changedBy.get(), Long.MAX_VALUE);
        assertThat(GrantLog.maxInAnyWindow(before, SECOND.toMillis())).as("before the change").isLessThanOrEqualTo(10);
        assertThat(GrantLog.maxInAnyWindow(after, SECOND.toMillis())).as("permits in any 1000 ms window after the change")
                .isLessThanOrEqualTo(6);
        assertThat(GrantLog.countIn(after, 0, Long.MAX_VALUE)).as("and the limiter still grants").isGreaterThanOrEqualTo(12);
        assertThat(redis.string("HGET", name, "rate")).isEqualTo("6");
        System.out.printf("[proof lowered %s] 10 -> 6 per second, grants of 2 permits: most in any 1000 ms window "
                + "before %d, after the change %d; %d permits granted after the change%n", redis.describe(),
                GrantLog.maxInAnyWindow(before, SECOND.toMillis()), GrantLog.maxInAnyWindow(after, SECOND.toMillis()),
                GrantLog.countIn(after, 0, Long.MAX_VALUE));
    }

    @ParameterizedTest
    @MethodSource("deployments")
    void lostStateNeverLetsAWindowHoldMoreThanTheRate(RedisDeployment redis) throws Exception {
        for (String lost : List.of("value", "permits", "both")) {
            redis.flushAll();
            int rate = 10;
            LimitSpec spec = new LimitSpec(rate, SECOND, RateLimitMode.OVERALL);
            String name = naming.limiterName("proof:lost:" + lost);
            Hammer hammer = new Hammer(backends(redis, BackendOptions.DEFAULTS, Duration.ZERO, Duration.ZERO), 3);
            AtomicLong lostAt = new AtomicLong();

            GrantLog log = GrantLog.start(redis, name);
            try {
                hammer.run(name, spec, Duration.ofMillis(4_500), Duration.ofMillis(1_300), () -> {
                    if (!lost.equals("permits")) {
                        redis.command("DEL", LimiterNaming.valueKey(name));
                    }
                    if (!lost.equals("value")) {
                        redis.command("DEL", LimiterNaming.permitsKey(name));
                    }
                    lostAt.set(serverMillis(redis, name));
                });
            }
            finally {
                log.close();
            }

            List<GrantLog.Event> grants = log.grants();
            assertThat(grants).hasSize(hammer.granted());
            if (lost.equals("both")) {
                // nothing is left to tell what was held: a fresh window, as after a reset (docs/operations.md)
                long deleted = lostAt.get();
                assertThat(GrantLog.maxInAnyWindow(GrantLog.between(grants, 0, deleted), SECOND.toMillis()))
                        .as("before the loss").isLessThanOrEqualTo(rate);
                assertThat(GrantLog.maxInAnyWindow(GrantLog.between(grants, deleted, Long.MAX_VALUE), SECOND.toMillis()))
                        .as("lost both: permits in any 1000 ms window from the loss on").isLessThanOrEqualTo(rate);
            }
            else {
                assertThat(GrantLog.maxInAnyWindow(grants, SECOND.toMillis()))
                        .as("lost %s: permits in any 1000 ms window", lost).isLessThanOrEqualTo(rate);
            }
            // and the limiter goes on granting after the loss (at least a window's worth), so the bound says something
            assertThat(GrantLog.countIn(grants, lostAt.get(), Long.MAX_VALUE)).as("lost %s: granted after the loss", lost)
                    .isGreaterThanOrEqualTo(rate);
            System.out.printf("[proof lost %s %s] %d grants, most in any 1000 ms window %d (rate %d), holds on lost "
                    + "grants %s%n", lost, redis.describe(), grants.size(), GrantLog.maxInAnyWindow(grants, SECOND.toMillis()),
                    rate, log.held().stream().map(GrantLog.Event::permits).toList());
        }
    }

    /**
     * The trade-off of {@code ratelimit.clock=client}, shown so that the proofs above are known to be able to
     * fail: the same skewed clients stamping with their own clocks get more than the rate into one window of Redis's
     * clock, counted as the proofs count. (Without the flood shortcut: the rejected clients keep asking, as callers
     * of RRateLimiter's own tryAcquire do.)
     */
    @Test
    void clientClocksThreeSecondsApartBreakTheLimitInClientMode() throws Exception {
        RedisDeployment redis = TestRedis.endpoint();
        redis.flushAll();
        int rate = 50;
        LimitSpec spec = new LimitSpec(rate, SECOND, RateLimitMode.OVERALL);
        String name = naming.limiterName("proof:client-clock");
        List<RateLimitBackend> backends = backends(redis, BackendOptions.DEFAULTS.withClock(LimiterClock.CLIENT),
                Duration.ofSeconds(-3), Duration.ZERO, Duration.ofSeconds(3)).stream()
                .map(backend -> ((LocalRejectionCache) backend).getDelegate()).toList();
        Hammer hammer = new Hammer(backends, 8);
        Duration run = Duration.ofSeconds(3);

        GrantLog log = GrantLog.start(redis, name);
        try {
            hammer.run(name, spec, run, null, null);
        }
        finally {
            log.close();
        }

        // the stamps are the clients' clocks: count by when Redis ran each grant instead
        List<GrantLog.Event> byRedisClock = log.grants().stream()
                .map(grant -> new GrantLog.Event(grant.serverMicros() / 1_000, grant.permits(), grant.serverMicros()))
                .sorted(java.util.Comparator.comparingLong(GrantLog.Event::stampMillis)).toList();
        long most = GrantLog.maxInAnyWindow(byRedisClock, SECOND.toMillis());
        assertThat(byRedisClock).as("every grant the threads saw, and no other").hasSize(hammer.granted());
        assertThat(most).as("permits in one 1000 ms window of Redis's clock at %d per second", rate)
                .isGreaterThan(rate);
        System.out.printf("[proof client clock] the same skew with ratelimit.clock=client: %d grants in %d ms, most in "
                + "one 1000 ms window of Redis's clock %d (rate %d), per client %d / %d / %d%n", hammer.granted(),
                run.toMillis(), most, rate, hammer.grantedBy(0), hammer.grantedBy(1), hammer.grantedBy(2));
    }

    private static long serverMillis(RedisDeployment redis, String key) {
        try (RespClient cli = redis.cliFor(key)) {
            List<?> time = (List<?>) cli.command("TIME");
            return Long.parseLong(time.get(0).toString()) * 1_000 + Long.parseLong(time.get(1).toString()) / 1_000;
        }
    }
}
