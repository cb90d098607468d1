package io.github.redissonratelimit.contract;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.contract.Algorithm.Limit;
import io.github.redissonratelimit.lease.LeasingRateLimitBackend;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.RedisDeployment;

/**
 * Every algorithm at once with leases: two instances (each a {@link LeasingRateLimitBackend} on a Redis backend of its
 * own client), three threads each, on one leased limit per algorithm, in bursts: each cycle starts with a pause long
 * enough for a bucket to fill, then each instance's demand (far above the rate) comes and goes at random, so that
 * leases are taken on a full bucket, held through a gap of their instance's demand and spent after the other
 * instance's burst, and run across a fixed window's end. A tenth of the grants are given back up to 150 ms later
 * (a charge-by-outcome condition found false: into the lease while it lasts, else to Redis).
 *
 * <p>What is checked is each permit's SPEND time by Redis's clock. A spend from a lease happens in this JVM's memory
 * inside the call that took it, so it is recorded as every grant is ({@link Calls}): from {@link RedisTime#now()}
 * before the call, less its error, to after its answer, plus its error. Both ends are on the safe side: the law
 * checker counts a spend only in spans holding its whole range, and every bound grows with the span, so a spend's
 * true time, somewhere in the range, lies in a span no longer than the one it is counted in. (Reading Redis's
 * {@code TIME} after the spend would give only the later end, and cost a round trip per spend: the calibrated host
 * clock gives both ends of every spend, a lease's or Redis's, with one error.)
 */
final class LeaseRun {

    /** The aspect: spends from leases (and the decisions made between them by Redis), at spend time. */
    static final String SPENT = "spent with leases";
    static final long RATE = 200;
    static final long BURST = 40;
    static final Duration INTERVAL = Duration.ofSeconds(1);
    /** {@code BURST / 2} permits' time of the bucket: a lease on a full bucket may take at most a quarter of it. */
    static final Duration LEASE = Duration.ofMillis(100);
    private static final int THREADS = 3;
    private static final long CYCLE_MILLIS = 700;
    /** The pause that starts each cycle: a bucket refills whole in {@code BURST / RATE} s (200 ms). */
    private static final long PAUSE_MILLIS = 250;

    private LeaseRun() {
    }

    static Verdicts run(Topology topology, long seed, Duration length) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        RedisDeployment redis = topology.redis();
        redis.flushAll();
        List<RedissonClient> clients = new ArrayList<>();
        List<LeasingRateLimitBackend> instances = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                RedissonClient client = redis.newRedissonClient();
                clients.add(client);
                instances.add(new LeasingRateLimitBackend(new RedissonRateLimitBackend(client)));
            }
            RedisTime time = RedisTime.of(redis, "contract");
            Ledger ledger = new Ledger();
            long origin = time.now();
            Instant windowEnd = Instant.ofEpochSecond((origin + length.toNanos() / 2_000) / 1_000_000);
            List<Limit> limits = Algorithm.ALL.stream().map(algorithm -> algorithm.limit(
                    RATE, BURST, INTERVAL, windowEnd)).toList();
            String prefix = "contract:" + Long.toHexString(seed) + ":leased:";
            LimiterNaming naming = new LimiterNaming();
            Verdicts verdicts = new Verdicts("leases " + topology, seed, origin);
            AtomicInteger refused = new AtomicInteger();
            AtomicInteger givenBack = new AtomicInteger();
            long start = System.nanoTime();
            long end = start + length.toNanos();
            List<boolean[]> demand = List.of(schedule(random.split(), length), schedule(random.split(), length));
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 2 * THREADS; i++) {
                int instance = i % 2;
                SplittableRandom own = random.split();
                Thread thread = new Thread(() -> {
                    while (System.nanoTime() - end < 0) {
                        int millis = (int) ((System.nanoTime() - start) / 1_000_000);
                        if (!demand.get(instance)[Math.min(millis, demand.get(instance).length - 1)]) {
                            LockSupport.parkNanos(1_000_000);
                            continue;
                        }
                        int pick = own.nextInt(limits.size());
                        Limit limit = limits.get(pick);
                        String key = prefix + Algorithm.ALL.get(pick).id();
                        long permits = own.nextInt(10) == 0 ? 2 : 1;
                        AcquireRequest request = new AcquireRequest(naming.limiterName(key), limit.spec(), permits,
                                BackendErrorPolicy.DENY, false, Duration.ZERO, null,
                                new AcquireRequest.Lease(LEASE, 0));
                        long from = time.now() - time.errorMicros();
                        Decision decision = instances.get(instance).acquire(request).toCompletableFuture().join();
                        long to = time.now() + time.errorMicros();
                        if (!decision.allowed()) {
                            refused.incrementAndGet();
                            LockSupport.parkNanos(500_000);
                        }
                        else if (own.nextInt(10) == 0) {
                            givenBack.incrementAndGet();
                            CompletableFuture.delayedExecutor(own.nextInt(150), TimeUnit.MILLISECONDS).execute(() -> {
                                long back = time.now() - time.errorMicros();
                                instances.get(instance).release(request, decision).toCompletableFuture().join();
                                ledger.gaveBack(new Ledger.Refund(key, permits, from, back,
                                        time.now() + time.errorMicros()));
                            });
                        }
                        else {
                            ledger.kept(new Ledger.Grant(key, limit, permits, from, to, "@" + instance));
                        }
                        LockSupport.parkNanos(own.nextInt(300_000));
                    }
                });
                thread.start();
                threads.add(thread);
            }
            for (Thread thread : threads) {
                thread.join(length.toMillis() + 30_000);
            }
            long hits = instances.stream().mapToLong(LeasingRateLimitBackend::leaseHits).sum();
            long calls = instances.stream().mapToLong(LeasingRateLimitBackend::redisCalls).sum();
            for (int i = 0; i < Algorithm.ALL.size(); i++) {
                Algorithm algorithm = Algorithm.ALL.get(i);
                // demand comes a little over half the time: a working limit lets through a sixth of its rate at least
                long least = (long) (RATE * length.toMillis() / 6_000.0);
                verdicts.add(SPENT, algorithm, ledger, prefix + algorithm.id(), least);
            }
            verdicts.note("decisions from leases " + hits + ", calls to Redis " + calls + ", refused " + refused
                    + ", given back " + givenBack);
            return verdicts;
        }
        finally {
            instances.forEach(LeasingRateLimitBackend::close);
            clients.forEach(RedissonClient::shutdown);
        }
    }

    /**
     * One instance's demand, ms by ms: a pause at the start of each cycle, then on (20-80 ms) and off (5-40 ms: a
     * lease may outlast it) at random.
     */
    private static boolean[] schedule(SplittableRandom random, Duration length) {
        boolean[] on = new boolean[(int) length.toMillis() + 1];
        int at = 0;
        boolean active = random.nextBoolean();
        while (at < on.length) {
            int span = active ? 20 + random.nextInt(61) : 5 + random.nextInt(36);
            for (int i = at; i < Math.min(on.length, at + span); i++) {
                on[i] = active && i % CYCLE_MILLIS >= PAUSE_MILLIS;
            }
            at += span;
            active = !active;
        }
        return on;
    }
}
