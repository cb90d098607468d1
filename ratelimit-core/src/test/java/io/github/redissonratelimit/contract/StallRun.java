package io.github.redissonratelimit.contract;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.redissonratelimit.contract.Algorithm.Limit;
import io.github.redissonratelimit.local.InstanceCount;
import io.github.redissonratelimit.test.redis.RedisDeployment;

/**
 * Redis stalled twice for a second while two instances (clocks 2 h behind and ahead of Redis's) serve many callers
 * under the {@code local} outage policy, the default: each caller has a limit of its own of every algorithm (5 per
 * 3 s, a token bucket's burst 3, a calendar quota 5 per hour whose hour ends mid-run), calling at its own pace (half
 * a call to four calls a second, so that some are under their limit when Redis stalls); half the callers' calls take
 * turns on the instances, the other half's go to either at random: during a stall each instance decides in memory
 * for its share, and after it Redis must count what was granted in memory. The first stall is of every master; on a
 * cluster the second one is of one master only (the others answer meanwhile). No caller may get more than its limit;
 * but a caller sent at random may get, in a span that holds part of a stall, the other instance's share on top (at
 * most the larger of the two shares): an instance that did not see the caller's grants before the stall grants it
 * its share in memory (see LocalFallbackHoldTest).
 */
final class StallRun {

    /** The aspect of the callers whose calls take turns on the two instances, through the stalls. */
    static final String TAKING_TURNS = "stalls, calls taking turns on the instances";
    /** The aspect of the callers whose calls go to either instance at random, through the stalls. */
    static final String AT_RANDOM = "stalls, calls sent to either instance at random";
    /** The same callers, checked against the law with the other instance's share on top per stall. */
    static final String AT_RANDOM_SHARE_ON_TOP = "stalls, calls sent to either instance at random, a share on top";
    static final long RATE = 5;
    static final Duration INTERVAL = Duration.ofSeconds(3);
    static final Duration STALL = Duration.ofSeconds(1);

    private StallRun() {
    }

    /**
     * The larger of the two instances' shares of {@code limit} in memory, in the spans that may hold part of a stall
     * (from its start to two stalls' length after its end: decisions in memory go on meanwhile).
     */
    private static List<Ledger.Allowance> shareOnTop(Limit limit, List<long[]> stalled) {
        long share = InstanceCount.fixed(2, 0).shareOf(limit.spec().algorithm().outageQuota(limit.spec().rate()));
        synchronized (stalled) {
            return stalled.stream().map(span -> new Ledger.Allowance("the other instance's share", share, span[0],
                    span[1])).toList();
        }
    }

    static Verdicts run(Topology topology, long seed, Duration length, int callersPerAlgorithm) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        RedisDeployment redis = topology.redis();
        redis.flushAll();
        List<Instance> instances = new ArrayList<>();
        ExecutorService stalls = Executors.newSingleThreadExecutor();
        try {
            instances.add(Instance.start(redis, Duration.ofHours(-2), Duration.ofMillis(200)));
            instances.add(Instance.start(redis, Duration.ofHours(2), Duration.ofMillis(200)));
            Instance.awaitCounted(instances);
            RedisTime time = RedisTime.of(redis, "contract");
            Ledger ledger = new Ledger();
            Calls calls = new Calls(ledger, time);
            long origin = time.now();
            Instant windowEnd = Instant.ofEpochSecond((origin + length.toNanos() / 2_000) / 1_000_000);
            Verdicts verdicts = new Verdicts("stalls " + topology, seed, origin);
            String prefix = "contract:" + Long.toHexString(seed) + ":";
            List<String> keys = new ArrayList<>();
            List<Limit> limits = new ArrayList<>();
            List<Algorithm> algorithms = new ArrayList<>();
            for (Algorithm algorithm : Algorithm.ALL) {
                Limit limit = algorithm.limit(RATE, 3, INTERVAL, windowEnd);
                for (int caller = 0; caller < callersPerAlgorithm; caller++) {
                    keys.add(prefix + algorithm.id() + ":" + caller);
                    limits.add(limit);
                    algorithms.add(algorithm);
                }
            }
            // each caller's pace, from half a call to four calls a second: some use their limit up, some stay under it
            double[] perTick = new double[keys.size()];
            int[] turns = new int[keys.size()];
            for (int caller = 0; caller < keys.size(); caller++) {
                perTick[caller] = (0.5 + random.nextDouble() * 3.5) / 100;
            }
            long[] stallsAt = {length.toMillis() * 3 / 15, length.toMillis() * 8 / 15};
            List<long[]> stalled = new ArrayList<>();
            int nextStall = 0;
            long start = System.nanoTime();
            while (System.nanoTime() - start < length.toNanos()) {
                long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
                if (nextStall < stallsAt.length && elapsedMillis >= stallsAt[nextStall]) {
                    boolean all = nextStall == 0;
                    String on = keys.get(random.nextInt(keys.size()));
                    stalls.execute(() -> {
                        long sent = time.now() - time.errorMicros();
                        if (all) {
                            topology.stallAll(STALL);
                        }
                        else {
                            topology.stallMasterOf(calls.limiterName(on), STALL);
                        }
                        // decisions in memory go on for a while after it: the deadline, the open circuit
                        long after = time.now() + time.errorMicros() + STALL.multipliedBy(2).toNanos() / 1_000;
                        synchronized (stalled) {
                            stalled.add(new long[] {sent, after});
                        }
                    });
                    verdicts.note((all ? "every master" : "the master of " + on) + " stalled at " + elapsedMillis
                            + " ms");
                    nextStall++;
                }
                for (int caller = 0; caller < keys.size(); caller++) {
                    if (random.nextDouble() < perTick[caller]) {
                        int instance = caller % 2 == 0 ? turns[caller]++ % 2 : random.nextInt(2);
                        calls.plain(instances.get(instance), keys.get(caller), limits.get(caller), 1);
                    }
                }
                Thread.sleep(10);
            }
            calls.awaitAnswers(Duration.ofSeconds(10));
            stalls.shutdown();
            stalls.awaitTermination(10, TimeUnit.SECONDS);
            for (int caller = 0; caller < keys.size(); caller++) {
                String aspect = caller % 2 == 0 ? TAKING_TURNS : AT_RANDOM;
                verdicts.add(aspect, algorithms.get(caller), ledger, keys.get(caller), 1);
                if (caller % 2 == 1) {
                    verdicts.add(AT_RANDOM_SHARE_ON_TOP, algorithms.get(caller), ledger, keys.get(caller), 1,
                            shareOnTop(limits.get(caller), stalled));
                }
            }
            verdicts.note("calls: " + calls.outcomes() + "; in memory: "
                    + instances.stream().map(instance -> instance.fallback.getAllowedCount() + " allowed / "
                            + instance.fallback.getRejectedCount() + " rejected, " + instance.fallback
                                    .getWrittenBackCount() + " written back").toList());
            return verdicts;
        }
        finally {
            stalls.shutdownNow();
            instances.forEach(Instance::close);
        }
    }
}
