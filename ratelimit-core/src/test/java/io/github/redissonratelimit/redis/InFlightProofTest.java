package io.github.redissonratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.InFlightRun.Limit;
import io.github.redissonratelimit.redis.InFlightRun.Outcome;
import io.github.redissonratelimit.redis.LeaseTimeline.Lease;
import io.github.redissonratelimit.redis.LeaseTimeline.Peak;
import io.github.redissonratelimit.test.redis.RedisServerProcess;

/**
 * The proof of the in-flight limit, by Redis's clock: across instances (one killed mid-run), cancellations,
 * exceptions, slow calls, a {@code FLUSHALL} and a restart of Redis, the most permits held at any moment never
 * exceed the rate. Held is counted from what Redis ran ({@link InFlightRun}, {@link LeaseTimeline}): each lease
 * from its grant until its call gave it back or, unless renewed, its end, exactly in µs. Losing Redis's data ends
 * the leases in Redis while their calls run on: from then until those calls end the calls in flight may be as many
 * as the rate plus what was held at the loss, which is what the limit guarantees across a loss.
 *
 * <p>{@code -Dinflight.seed=<seed>} runs that seed's schedule (printed on each report line and failure) alone;
 * {@code -Dinflight.runs=<n>} makes {@code n} runs of random seeds (3 by default).
 */
class InFlightProofTest {

    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final Duration RUN = Duration.ofMillis(2_400);

    private static RedisServerProcess server;

    @BeforeAll
    static void startRedis() {
        server = RecordedRedis.start();
    }

    @AfterAll
    static void stopRedis() {
        server.close();
    }

    @Test
    void neverMorePermitsHeldAtOnceThanTheRateByRedisClock() throws InterruptedException {
        List<String> failures = new ArrayList<>();
        long heldLongerThanALease = 0;
        for (long seed : seeds()) {
            List<Limit> limits = List.of(limit("export-" + seed, 3, 1), limit("upload-" + seed, 5, 3));
            Outcome outcome = new InFlightRun(seed, server, limits, RUN).run();
            for (Limit limit : limits) {
                LeaseTimeline timeline = LeaseTimeline.of(limit.name(), outcome.calls(), outcome.lossMicros());
                failures.addAll(check(seed, limit, timeline, outcome));
                heldLongerThanALease += timeline.heldLongerThan(LEASE.toNanos() / 1000).size();
            }
        }
        assertThat(failures).isEmpty();
        assertThat(heldLongerThanALease).as("calls that held their permits longer than a lease period, by renewals")
                .isPositive();
    }

    /** What the run shows of one limit, reported; the failures of the checks. */
    private static List<String> check(long seed, Limit limit, LeaseTimeline timeline, Outcome outcome) {
        long rate = limit.spec().rate();
        Peak inRedis = timeline.mostHeld(true);
        Peak inFlight = timeline.mostHeld(false);
        List<Lease> leases = timeline.leases();
        long neverGivenBack = leases.stream().filter(lease -> !lease.givenBack()).count();
        long refused = timeline.attempts().stream().filter(attempt -> !attempt.granted()).count();
        int outlived = timeline.heldLongerThan(LEASE.toNanos() / 1000).size();
        String where = "[in-flight proof seed=" + seed + " " + limit.name() + " rate=" + rate + "]";
        System.out.println(where + " leases " + leases.size() + " (" + neverGivenBack + " never given back: the "
                + "killed instance's and cancelled decisions'), refusals " + refused + ", renewals "
                + leases.stream().mapToInt(Lease::renewals).sum() + " (" + outlived + " calls held longer than a "
                + "lease period), most held " + inRedis.permits()
                + ", most held by calls in flight across " + outcome.lossMicros().size() + " losses "
                + inFlight.permits() + " (" + timeline.lostToALoss().size() + " leases lost); callers: "
                + outcome.counts());
        List<String> failures = new ArrayList<>();
        if (inRedis.permits() > rate) {
            failures.add(where + " " + inRedis.permits() + " permits held at " + inRedis.atMicros() + " µs by "
                    + describe(inRedis.holders()) + (timeline.endedWhileHeld().isEmpty() ? ""
                            : " (leases lost while held: " + describe(timeline.endedWhileHeld()) + ")"));
        }
        if (inFlight.permits() > rate * (1 + outcome.lossMicros().size())) {
            failures.add(where + " calls in flight held " + inFlight.permits() + " permits at " + inFlight.atMicros()
                    + " µs by " + describe(inFlight.holders()));
        }
        if (!timeline.endedWhileHeld().isEmpty()) {
            failures.add(where + " leases ended unrenewed while their calls held them: "
                    + describe(timeline.endedWhileHeld()));
        }
        Set<Long> traced = Set.copyOf(leases.stream().map(Lease::id).toList());
        List<Long> untraced = outcome.grantedIds().getOrDefault(limit.name(), Set.of()).stream()
                .filter(id -> !traced.contains(id)).toList();
        if (!untraced.isEmpty()) {
            failures.add(where + " grants the callers had that MONITOR did not show: " + untraced);
        }
        if (refused == 0) {
            failures.add(where + " the limit was never reached: the run proves nothing of it");
        }
        return failures;
    }

    /** Each lease: its id, permits, and how it ended (µs after its grant). */
    private static String describe(List<Lease> leases) {
        return leases.stream().map(lease -> "r" + lease.id() + " x" + lease.permits() + " "
                + (lease.givenBack() ? "given back at +" + (lease.givenBackMicros() - lease.id())
                        + (lease.givenBackMicros() > lease.unrenewedEndMicros() ? " (unrenewed end +"
                                + (lease.unrenewedEndMicros() - lease.id()) + ")" : "")
                        : "never given back, ended at +" + (lease.unrenewedEndMicros() - lease.id()))
                + " after " + lease.renewals() + " renewals").toList().toString();
    }

    private static Limit limit(String key, long rate, int mostPermits) {
        return new Limit(new LimiterNaming().limiterName(key), new LimitSpec(rate, LEASE, RateLimitMode.OVERALL,
                LimitAlgorithm.IN_FLIGHT), mostPermits);
    }

    private static long[] seeds() {
        String seed = System.getProperty("inflight.seed");
        if (seed != null) {
            return new long[] {Long.parseLong(seed)};
        }
        long base = System.nanoTime();
        return LongStream.range(0, Long.getLong("inflight.runs", 3)).map(i -> base * 31 + i).toArray();
    }
}
