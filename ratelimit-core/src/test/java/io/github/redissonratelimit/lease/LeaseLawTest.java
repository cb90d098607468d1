package io.github.redissonratelimit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.FreshRedis;

/**
 * The sliding window's law at the time each permit is SPENT, with leases: two instances (two Redisson clients, each
 * its own {@link LeasingRateLimitBackend}) and several threads each on one leased limit, under more demand than the
 * rate. Each spend is recorded as the range of this JVM's monotonic clock between the call and its answer (a
 * decision from a lease is made inside that range, one from Redis too); a window counts only the spends whose whole
 * range lies in it, and windows are {@value #MARGIN_MILLIS} ms shorter than the interval, for the drift of Redis's
 * wall clock against the monotonic one over a run (at most 500 ppm under NTP). So a count above the rate is a real
 * excess by Redis's clock.
 */
class LeaseLawTest {

    private static final int MARGIN_MILLIS = 3;
    private static final int RATE = 300;
    private static final Duration INTERVAL = Duration.ofMillis(1_000);
    private static final Duration LEASE = Duration.ofMillis(100);

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();

    record Spend(long fromNanos, long toNanos, long permits) {
    }

    @Test
    void noWindowOfSpendTimesHoldsMoreThanTheRate() throws Exception {
        long seed = Long.getLong("lease.seed", System.nanoTime());
        LimitSpec spec = new LimitSpec(RATE, INTERVAL, RateLimitMode.OVERALL);
        String name = new LimiterNaming().limiterName("lease:law");
        List<LeasingRateLimitBackend> instances = List.of(instance(), instance());
        List<Spend> spends = Collections.synchronizedList(new ArrayList<>());
        int threads = 3;
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3_000);
        CountDownLatch done = new CountDownLatch(2 * threads);
        for (int i = 0; i < 2 * threads; i++) {
            LeasingRateLimitBackend backend = instances.get(i % 2);
            Random random = new Random(seed + i);
            new Thread(() -> {
                try {
                    while (System.nanoTime() - end < 0) {
                        long permits = random.nextInt(10) == 0 ? 2 : 1;
                        long from = System.nanoTime();
                        Decision decision = backend.acquire(request(name, spec, permits)).toCompletableFuture()
                                .get(5, TimeUnit.SECONDS);
                        long to = System.nanoTime();
                        if (decision.allowed()) {
                            spends.add(new Spend(from, to, permits));
                        }
                        LockSupport.parkNanos(random.nextInt(1_500_000));
                    }
                }
                catch (Exception ex) {
                    throw new IllegalStateException(ex);
                }
                finally {
                    done.countDown();
                }
            }).start();
        }
        assertThat(done.await(20, TimeUnit.SECONDS)).isTrue();
        instances.forEach(LeasingRateLimitBackend::close);
        long spent = spends.stream().mapToLong(Spend::permits).sum();
        long most = mostInAWindow(spends, INTERVAL.toNanos() - TimeUnit.MILLISECONDS.toNanos(MARGIN_MILLIS));
        long hits = instances.stream().mapToLong(LeasingRateLimitBackend::leaseHits).sum();
        long calls = instances.stream().mapToLong(LeasingRateLimitBackend::redisCalls).sum();
        String report = "[lease-law seed=" + seed + "] spent " + spent + " permits in " + spends.size()
                + " grants, most in a window " + most + " (rate " + RATE + "), lease hits " + hits + ", Redis calls "
                + calls;
        System.out.println(report);
        assertThat(most).as(report).isLessThanOrEqualTo(RATE);
        // the limit was saturated (else the law holds trivially) and leases served decisions
        assertThat(spent).as(report).isGreaterThanOrEqualTo(2L * RATE);
        assertThat(hits).as(report).isGreaterThan(0);
    }

    /** The most permits of spends whose whole range lies in one window of {@code width} ns. */
    static long mostInAWindow(List<Spend> spends, long width) {
        List<Spend> byStart = new ArrayList<>(spends);
        byStart.sort((a, b) -> Long.compare(a.fromNanos(), b.fromNanos()));
        long most = 0;
        for (int i = 0; i < byStart.size(); i++) {
            long start = byStart.get(i).fromNanos();
            long sum = 0;
            for (int j = i; j < byStart.size() && byStart.get(j).fromNanos() - start <= width; j++) {
                if (byStart.get(j).toNanos() - start <= width) {
                    sum += byStart.get(j).permits();
                }
            }
            most = Math.max(most, sum);
        }
        return most;
    }

    private LeasingRateLimitBackend instance() {
        return new LeasingRateLimitBackend(new RedissonRateLimitBackend(fresh.newClient()));
    }

    static AcquireRequest request(String name, LimitSpec spec, long permits) {
        return new AcquireRequest(name, spec, permits, BackendErrorPolicy.DENY, false, Duration.ZERO, null,
                new AcquireRequest.Lease(LEASE, 0));
    }
}
