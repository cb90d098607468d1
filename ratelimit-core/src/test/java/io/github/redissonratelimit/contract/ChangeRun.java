package io.github.redissonratelimit.contract;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import io.github.redissonratelimit.contract.Algorithm.Limit;
import io.github.redissonratelimit.test.redis.RedisDeployment;

/**
 * A limit's config changed while it is used, on the default {@code update} policy, by an old instance (clock 2 h
 * behind Redis's) and a new one (2 h ahead) calling every algorithm's limiters: changed in place (another rate and
 * burst, the same algorithm) as a rolling deployment changes it (both with the old config, then the old instance
 * with it and the new one with the new config, then both with the new one); changed to another algorithm on every
 * instance at once; and changed to another algorithm by a rolling deployment. In any span, the grants may hold no
 * more than the most generous config they were decided with allows ({@link LawCheck}).
 */
final class ChangeRun {

    /** How a limiter's config changes. */
    enum Change {
        IN_PLACE("changed in place while old instances run"),
        ACROSS("changed to another algorithm on every instance at once"),
        ACROSS_ROLLING("changed to another algorithm while old instances run");

        final String aspect;

        Change(String aspect) {
            this.aspect = aspect;
        }

        /** Which config (0: old, 1: new) each instance declares in each third of the run. */
        int[][] phases() {
            return this == ACROSS ? new int[][] {{0, 0}, {1, 1}, {1, 1}} : new int[][] {{0, 0}, {0, 1}, {1, 1}};
        }
    }

    /** A limiter whose config goes from {@code configs[0]} to {@code configs[1]}. */
    private record Changed(Algorithm from, Change change, String key, Limit[] configs, Law either) {

        Changed(Algorithm from, Change change, String key, Limit[] configs) {
            this(from, change, key, configs, Law.moreGenerous(configs[0].law(), configs[1].law()));
        }

        /**
         * Config {@code index} as a call declares it; once the change started, bound by the more generous of the two
         * (an instance that checked its config decides with the one another instance stored since, whichever).
         */
        Limit declared(int index, boolean changing) {
            Limit config = configs[index];
            return changing ? new Limit(config.label(), config.spec(), either) : config;
        }
    }

    private ChangeRun() {
    }

    static Verdicts run(Topology topology, long seed, Duration length) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        RedisDeployment redis = topology.redis();
        redis.flushAll();
        List<Instance> instances = new ArrayList<>();
        try {
            instances.add(Instance.start(redis, Duration.ofHours(-2), Duration.ofSeconds(1)));
            instances.add(Instance.start(redis, Duration.ofHours(2), Duration.ofSeconds(1)));
            Instance.awaitCounted(instances);
            RedisTime time = RedisTime.of(redis, "contract");
            Ledger ledger = new Ledger();
            Calls calls = new Calls(ledger, time);
            long origin = time.now();
            Instant windowEnd = Instant.ofEpochSecond((origin + length.toNanos() / 2_000) / 1_000_000);
            Verdicts verdicts = new Verdicts("config change " + topology, seed, origin);
            String prefix = "contract:" + Long.toHexString(seed) + ":";
            List<Changed> limiters = new ArrayList<>();
            for (Algorithm from : Algorithm.ALL) {
                for (Change change : Change.values()) {
                    Limit[] configs = configs(random, from, change, windowEnd);
                    limiters.add(new Changed(from, change, prefix + from.id() + ":" + change, configs));
                    verdicts.note(from + " " + change.aspect + ": " + configs[0] + " -> " + configs[1]);
                }
            }
            long start = System.nanoTime();
            long thirdNanos = length.toNanos() / 3;
            while (System.nanoTime() - start < length.toNanos()) {
                int third = (int) Math.min(2, (System.nanoTime() - start) / thirdNanos);
                for (Changed changed : limiters) {
                    int[] declared = changed.change().phases()[third];
                    for (int i = 0; i < instances.size(); i++) {
                        if (random.nextInt(10) == 0) {
                            calls.plain(instances.get(i), changed.key(), changed.declared(declared[i], third > 0),
                                    1 + random.nextInt(2));
                        }
                    }
                }
                Thread.sleep(5);
            }
            calls.awaitAnswers(Duration.ofSeconds(10));
            for (Changed changed : limiters) {
                verdicts.add(changed.change().aspect, changed.from(), ledger, changed.key(),
                        changed.from() == Algorithm.CALENDAR_WINDOW ? 4 : length.toSeconds());
            }
            verdicts.note("calls: " + calls.outcomes());
            return verdicts;
        }
        finally {
            instances.forEach(Instance::close);
        }
    }

    /**
     * The old and the new config, from the seed: in place, the rate (and a token bucket's burst) raised or lowered;
     * across, the other algorithm drawn among the three.
     */
    private static Limit[] configs(SplittableRandom random, Algorithm from, Change change, Instant windowEnd) {
        Duration second = Duration.ofSeconds(1);
        Limit old = from.limit(from == Algorithm.CALENDAR_WINDOW ? 12 : 8, 3, second, windowEnd);
        if (change == Change.IN_PLACE) {
            boolean raised = random.nextBoolean();
            long rate = from == Algorithm.CALENDAR_WINDOW ? (raised ? 20 : 8) : (raised ? 12 : 5);
            return new Limit[] {old, from.limit(rate, raised ? 6 : 2, second, windowEnd)};
        }
        List<Algorithm> others = new ArrayList<>(Algorithm.ALL);
        others.remove(from);
        Algorithm to = others.get(random.nextInt(others.size()));
        return new Limit[] {old, to.limit(to == Algorithm.CALENDAR_WINDOW ? 12 : 8, 3, second, windowEnd)};
    }
}
