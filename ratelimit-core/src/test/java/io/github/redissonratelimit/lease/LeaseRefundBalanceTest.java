package io.github.redissonratelimit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
 * No permit is lost or credited twice when calls give their permits back (a charge-by-outcome condition found false)
 * while leases end and renew: asked ahead, taken over, ended by their period, several callers at once, on one
 * instance or two, with give-backs reaching Redis late and out of order ({@link LateGiveBacks}). The interval (a
 * minute) outlasts each round, so no grant leaves the window and the count is exact. Rounds draw their rate, lease
 * period, callers, call sizes and give-back delays from the seed (printed; {@code -Dlease.seed=} runs one again; the
 * threads' timing is not the seed's).
 */
class LeaseRefundBalanceTest {

    private static final Duration INTERVAL = Duration.ofSeconds(60);
    private static final long[] RATES = {5, 8, 20, 40, 100};
    private static final long[] LEASE_MILLIS = {15, 40, 120};
    private static final int ROUNDS = 6;
    private static final long ROUND_MILLIS = 600;
    private static final int ALONE_CALLS = 80;

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();

    /**
     * Once every call ended, every give-back was made and every lease ended, Redis's free permits (by its own clock
     * and counter) plus the permits of the calls that kept theirs are the rate. Fewer: a give-back was lost; more: one
     * was credited twice.
     */
    @Test
    void everyGivenBackPermitIsCountedOnce() throws Exception {
        long seed = Long.getLong("lease.seed", System.nanoTime());
        SplittableRandom random = new SplittableRandom(seed);
        List<String> failures = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            String report = round(round, random.split());
            System.out.println(report);
            if (!report.contains(" balanced")) {
                failures.add(report);
            }
        }
        assertThat(failures).as("[lease-refund seed=%d] rounds where free + kept != rate", seed).isEmpty();
    }

    private String round(int round, SplittableRandom random) throws Exception {
        long rate = RATES[random.nextInt(RATES.length)];
        Duration lease = Duration.ofMillis(LEASE_MILLIS[random.nextInt(LEASE_MILLIS.length)]);
        int instanceCount = 1 + random.nextInt(2);
        int threads = 2 + random.nextInt(3);
        double giveBackShare = 0.6 + 0.35 * random.nextDouble();
        boolean twoPermitCalls = rate >= 8 && random.nextBoolean();
        // the calls keep up to this many permits, the rest are given back: the limit stays in use all the round
        long keepAtMost = rate / 4 + random.nextLong(rate / 4 + 1);
        LimitSpec spec = new LimitSpec(rate, INTERVAL, RateLimitMode.OVERALL);
        String name = new LimiterNaming().limiterName("lease:refund:" + round);
        List<LeasingRateLimitBackend> instances = new ArrayList<>();
        for (int i = 0; i < instanceCount; i++) {
            instances.add(new LeasingRateLimitBackend(new LateGiveBacks(new RedissonRateLimitBackend(
                    fresh.newClient()), LeaseRefundBalanceTest::someDelayMicros)));
        }
        AtomicLong kept = new AtomicLong();
        AtomicLong givenBack = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        List<CompletableFuture<Void>> giveBacks = new CopyOnWriteArrayList<>();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ROUND_MILLIS);
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            LeasingRateLimitBackend backend = instances.get(t % instanceCount);
            SplittableRandom mine = random.split();
            new Thread(() -> {
                try {
                    while (System.nanoTime() - end < 0) {
                        long permits = twoPermitCalls && mine.nextInt(4) == 0 ? 2 : 1;
                        AcquireRequest request = request(name, spec, permits, lease);
                        Decision decision = backend.acquire(request).toCompletableFuture().get(5, TimeUnit.SECONDS);
                        if (!decision.allowed()) {
                            refused.incrementAndGet();
                        }
                        else if (mine.nextDouble() < giveBackShare || !keep(kept, permits, keepAtMost)) {
                            givenBack.addAndGet(permits);
                            // at once, or later: across the lease's end and the next lease taking over
                            long delayMicros = mine.nextBoolean() ? 0 : mine.nextLong(2 * lease.toMillis() * 1_000);
                            giveBacks.add(CompletableFuture.runAsync(() -> backend.release(request, decision)
                                    .toCompletableFuture().join(), CompletableFuture.delayedExecutor(delayMicros,
                                            TimeUnit.MICROSECONDS)));
                        }
                        LockSupport.parkNanos(mine.nextLong(lease.toNanos() / 10));
                    }
                }
                catch (Throwable ex) {
                    errors.add(ex);
                }
                finally {
                    done.countDown();
                }
            }).start();
        }
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(errors).isEmpty();
        CompletableFuture.allOf(giveBacks.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        // a lease asked ahead may still be on its way: let every lease end by its period, then close
        Thread.sleep(lease.toMillis() + 100);
        instances.forEach(LeasingRateLimitBackend::close);
        RedissonRateLimitBackend plain = new RedissonRateLimitBackend(fresh.newClient());
        long expected = rate - kept.get();
        long free = free(plain, name, spec);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (free != expected && System.nanoTime() - until < 0) {
            Thread.sleep(20);
            free = free(plain, name, spec);
        }
        long hits = instances.stream().mapToLong(LeasingRateLimitBackend::leaseHits).sum();
        long calls = instances.stream().mapToLong(LeasingRateLimitBackend::redisCalls).sum();
        return String.format("[lease-refund round %d] rate %d, lease %d ms, %d instance(s) x %d callers, "
                + "%d kept, %d given back, %d refused, lease hits %d, Redis calls %d: free %d, free + kept %d %s",
                round, rate, lease.toMillis(), instanceCount, threads, kept.get(), givenBack.get(), refused.get(),
                hits, calls, free, free + kept.get(), free == expected ? "balanced"
                        : free < expected ? "LOST " + (expected - free) : "CREDITED TWICE " + (free - expected));
    }

    /**
     * One caller on one instance, each give-back awaited (as a call's is): all the permits not kept are its own, in
     * its lease or in Redis, so each call must pass exactly when the permits kept and its own are within the rate.
     * Refused before: a permit given back was missing; passed beyond: one was credited twice.
     */
    @Test
    void aCallerAloneIsRefusedExactlyWhenItsKeptPermitsAndItsOwnPassTheRate() throws Exception {
        long seed = Long.getLong("lease.seed", System.nanoTime());
        SplittableRandom random = new SplittableRandom(seed);
        List<String> failures = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            String report = alone(round, random.split());
            System.out.println(report);
            if (!report.endsWith(" exact")) {
                failures.add(report);
            }
        }
        assertThat(failures).as("[lease-refund-alone seed=%d] rounds where a decision was not the count's", seed)
                .isEmpty();
    }

    private String alone(int round, SplittableRandom random) throws Exception {
        long rate = RATES[random.nextInt(RATES.length)];
        Duration lease = Duration.ofMillis(LEASE_MILLIS[random.nextInt(LEASE_MILLIS.length)]);
        int mostPermits = (int) Math.min(3, rate);
        // about the rate kept over the round, from a half to one and a half of it: the end of the round saturated or not
        double keepShare = rate * (0.5 + random.nextDouble()) / (ALONE_CALLS * (1 + mostPermits) / 2.0);
        LimitSpec spec = new LimitSpec(rate, INTERVAL, RateLimitMode.OVERALL);
        String name = new LimiterNaming().limiterName("lease:alone:" + round);
        LeasingRateLimitBackend leasing = new LeasingRateLimitBackend(new LateGiveBacks(new RedissonRateLimitBackend(
                fresh.newClient()), LeaseRefundBalanceTest::someDelayMicros));
        long kept = 0;
        String wrong = null;
        int calls = 0;
        for (; calls < ALONE_CALLS && wrong == null; calls++) {
            long permits = 1 + random.nextInt(mostPermits);
            AcquireRequest request = request(name, spec, permits, lease);
            Decision decision = leasing.acquire(request).toCompletableFuture().get(5, TimeUnit.SECONDS);
            boolean expected = kept + permits <= rate;
            if (decision.allowed() != expected) {
                wrong = String.format("call %d of %d permit(s) with %d kept %s", calls + 1, permits, kept,
                        expected ? "REFUSED" : "PASSED");
            }
            else if (decision.allowed() && random.nextDouble() < keepShare) {
                kept += permits;
            }
            else if (decision.allowed()) {
                leasing.release(request, decision).toCompletableFuture().get(5, TimeUnit.SECONDS);
            }
            // mostly within the lease, at times past its end
            long pauseMicros = random.nextInt(12) == 0 ? lease.toMillis() * 1_000 + random.nextLong(5_000)
                    : random.nextLong(2_000);
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(pauseMicros));
        }
        leasing.close();
        return String.format("[lease-refund alone %d] rate %d, lease %d ms, %d calls, %d kept, lease hits %d, Redis "
                + "calls %d: %s", round, rate, lease.toMillis(), calls, kept, leasing.leaseHits(),
                leasing.redisCalls(), wrong == null ? "exact" : wrong);
    }

    /** A give-back's delay: none for half of them, else up to 5 ms (any thread asks: not drawn from the seed). */
    private static long someDelayMicros() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return random.nextBoolean() ? 0 : random.nextLong(5_000);
    }

    /** Counts {@code permits} as kept unless that makes more than {@code most}; whether it did. */
    private static boolean keep(AtomicLong kept, long permits, long most) {
        if (kept.addAndGet(permits) <= most) {
            return true;
        }
        kept.addAndGet(-permits);
        return false;
    }

    private static long free(RedissonRateLimitBackend backend, String name, LimitSpec spec) throws Exception {
        return backend.state(name, spec).toCompletableFuture().get(5, TimeUnit.SECONDS).available();
    }

    private static AcquireRequest request(String name, LimitSpec spec, long permits, Duration lease) {
        return new AcquireRequest(name, spec, permits, BackendErrorPolicy.DENY, false, Duration.ZERO, null,
                new AcquireRequest.Lease(lease, 0));
    }
}
