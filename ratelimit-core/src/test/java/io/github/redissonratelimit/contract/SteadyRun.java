package io.github.redissonratelimit.contract;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.redissonratelimit.contract.Algorithm.Limit;
import io.github.redissonratelimit.test.redis.RedisDeployment;

/**
 * Every algorithm at once, called by three instances whose clocks are 2 h behind Redis's, right and 2 h ahead, on
 * two limiters each: one whose calls keep what they are granted (at once, after a wait, or once a charge-by-outcome
 * condition holds), one whose calls may give it back (the condition found false up to a second after the grant, when
 * part of it refilled or left the window; a tighter second limit that refuses; a wait the caller cancels). Meanwhile
 * each limiter loses some of its keys ({@code DEL}), Redis is emptied ({@code FLUSHALL}) and, on a server of the
 * test's own, restarted. The schedule (which call when, on which instance, the faults' times) comes from the seed; how
 * the calls interleave with Redis is the machine's.
 */
final class SteadyRun {

    static final long RATE = 8;
    static final long BURST = 3;
    static final Duration INTERVAL = Duration.ofSeconds(1);
    /** The aspect of calls that keep their grants, through skewed clocks and lost state. */
    static final String KEPT = "kept";
    /** The aspect of calls that give grants back. */
    static final String GIVEN = "given back";
    private static final String GIVEN_BACK = ":given-back";
    private static final String TIGHT = ":tight";

    private SteadyRun() {
    }

    static Verdicts run(Topology topology, long seed, Duration length) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        RedisDeployment redis = topology.redis();
        redis.flushAll();
        List<Instance> instances = new ArrayList<>();
        ExecutorService faults = Executors.newSingleThreadExecutor();
        try {
            for (Duration offset : List.of(Duration.ofHours(-2), Duration.ZERO, Duration.ofHours(2))) {
                instances.add(Instance.start(redis, offset, Duration.ofSeconds(1)));
            }
            Instance.awaitCounted(instances);
            RedisTime time = RedisTime.of(redis, "contract");
            Ledger ledger = new Ledger();
            Calls calls = new Calls(ledger, time);
            long origin = time.now();
            Instant windowEnd = Instant.ofEpochSecond((origin + length.toNanos() / 2_000) / 1_000_000);
            Map<Algorithm, Limit> limits = new LinkedHashMap<>();
            Map<Algorithm, Limit> tight = new LinkedHashMap<>();
            for (Algorithm algorithm : Algorithm.ALL) {
                limits.put(algorithm, algorithm.limit(algorithm == Algorithm.CALENDAR_WINDOW ? 12 : RATE, BURST,
                        INTERVAL, windowEnd));
                tight.put(algorithm, algorithm.limit(algorithm == Algorithm.CALENDAR_WINDOW ? 3 : 2, 1, INTERVAL,
                        windowEnd));
            }
            String prefix = "contract:" + Long.toHexString(seed) + ":";
            List<Fault> schedule = faults(random, topology, redis, ledger, time, calls, prefix, length);
            Verdicts verdicts = new Verdicts("steady " + topology, seed, origin);
            long start = System.nanoTime();
            int next = 0;
            while (System.nanoTime() - start < length.toNanos()) {
                long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
                while (next < schedule.size() && schedule.get(next).atMillis() <= elapsedMillis) {
                    Fault fault = schedule.get(next++);
                    faults.execute(fault.action());
                    verdicts.note(fault.what() + " at " + fault.atMillis() + " ms");
                }
                for (Algorithm algorithm : Algorithm.ALL) {
                    String key = prefix + algorithm.id();
                    if (random.nextInt(5) == 0) {
                        keeping(random, pick(random, instances), calls, key, limits.get(algorithm));
                    }
                    if (random.nextInt(2) == 0) {
                        givingBack(random, pick(random, instances), calls, key + GIVEN_BACK, limits.get(algorithm),
                                tight.get(algorithm));
                    }
                }
                Thread.sleep(5);
            }
            faults.shutdown();
            faults.awaitTermination(30, TimeUnit.SECONDS);
            calls.awaitAnswers(Duration.ofSeconds(10));
            double seconds = length.toMillis() / 1_000.0;
            for (Algorithm algorithm : Algorithm.ALL) {
                String key = prefix + algorithm.id();
                // a working limiter under this demand keeps at least a third of its rate, a calendar one window
                long least = algorithm == Algorithm.CALENDAR_WINDOW ? 12 : (long) (RATE * seconds / 3);
                verdicts.add(KEPT, algorithm, ledger, key, least);
                verdicts.add(GIVEN, algorithm, ledger, key + GIVEN_BACK, least / 2);
                verdicts.add(GIVEN, algorithm, ledger, key + GIVEN_BACK + TIGHT, 1);
            }
            verdicts.note("calls: " + calls.outcomes());
            return verdicts;
        }
        finally {
            faults.shutdownNow();
            instances.forEach(Instance::close);
        }
    }

    private static Instance pick(SplittableRandom random, List<Instance> instances) {
        return instances.get(random.nextInt(instances.size()));
    }

    /** A seeded call that keeps what it is granted: at once, after a wait, or once its outcome is known. */
    private static void keeping(SplittableRandom random, Instance instance, Calls calls, String key, Limit limit) {
        int kind = random.nextInt(100);
        long permits = 1 + random.nextInt(2);
        if (kind < 50) {
            calls.plain(instance, key, limit, permits);
        }
        else if (kind < 75) {
            calls.chargedWhen(instance, key, limit, permits, true, Duration.ZERO);
        }
        else {
            calls.waiting(instance, key, limit, 1, Duration.ofMillis(100 + random.nextInt(500)));
        }
    }

    /**
     * A seeded call that may give back what it is granted: its outcome known after a while (part of its permits
     * refilled or left the window meanwhile), a second limit that refuses, a wait its caller gives up.
     */
    private static void givingBack(SplittableRandom random, Instance instance, Calls calls, String key, Limit limit,
            Limit tight) {
        int kind = random.nextInt(100);
        if (kind < 15) {
            calls.plain(instance, key, limit, 1 + random.nextInt(2));
        }
        else if (kind < 65) { // most found false: a refund soon after the grant, or once part of it refilled or left
            long after = random.nextBoolean() ? 10 + random.nextInt(140) : 150 + random.nextInt(850);
            calls.chargedWhen(instance, key, limit, 1 + random.nextInt((int) Math.min(4, limit.law().capacity())),
                    random.nextInt(5) == 0, Duration.ofMillis(after));
        }
        else if (kind < 85) {
            calls.twoLimits(instance, key, limit, 1, key + TIGHT, tight, random.nextBoolean());
        }
        else {
            calls.waitingCancelled(instance, key, limit, 1, Duration.ofMillis(100 + random.nextInt(500)),
                    Duration.ofMillis(random.nextInt(500)));
        }
    }

    /** A fault of the run, {@code atMillis} into it. */
    private record Fault(long atMillis, String what, Runnable action) {
    }

    /**
     * The limiter of kept calls of each algorithm loses some of its keys once (the other one only with all of Redis:
     * a grant given back across a loss is allowed once more, and fewer losses leave more for the check); Redis is
     * emptied once, and restarted once where it can be.
     */
    private static List<Fault> faults(SplittableRandom random, Topology topology, RedisDeployment redis, Ledger ledger,
            RedisTime time, Calls calls, String prefix, Duration length) {
        long span = length.toMillis();
        List<Fault> faults = new ArrayList<>();
        for (Algorithm algorithm : Algorithm.ALL) {
            String key = prefix + algorithm.id();
            long seed = random.nextLong();
            faults.add(new Fault(span / 5 + random.nextLong(span * 3 / 5), "DEL of keys of " + key,
                    () -> deleteSome(redis, ledger, time, calls.limiterName(key), key, new SplittableRandom(seed))));
        }
        faults.add(new Fault(span / 5 + random.nextLong(span * 3 / 5), "FLUSHALL", () -> {
            long from = time.now() - time.errorMicros();
            redis.flushAll();
            ledger.lostAll("FLUSHALL", from, time.now() + time.errorMicros());
        }));
        long restartAt = span * 3 / 10 + random.nextLong(span * 2 / 5);
        if (topology.restarts()) {
            faults.add(new Fault(restartAt, "restart", () -> {
                long from = time.now() - time.errorMicros();
                topology.restartEmpty();
                ledger.lostAll("restart", from, time.now() + time.errorMicros());
            }));
        }
        faults.sort(java.util.Comparator.comparingLong(Fault::atMillis));
        return faults;
    }

    /** Deletes a random non-empty part of the limiter's keys, in one command. */
    private static void deleteSome(RedisDeployment redis, Ledger ledger, RedisTime time, String limiterName,
            String key, SplittableRandom random) {
        long from = time.now() - time.errorMicros();
        List<String> keys = new ArrayList<>(redis.keys(limiterName + "*"));
        java.util.Collections.shuffle(keys, new java.util.Random(random.nextLong()));
        List<String> lost = keys.subList(0, keys.isEmpty() ? 0 : 1 + random.nextInt(keys.size()));
        if (!lost.isEmpty()) {
            List<String> command = new ArrayList<>(List.of("DEL"));
            command.addAll(lost);
            redis.command(command.toArray(String[]::new));
        }
        ledger.lost(key, "DEL " + lost, from, time.now() + time.errorMicros());
    }
}
