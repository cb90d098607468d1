package io.github.redissonratelimit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Goal 1 of the Redis cost issue, its second half: how many decisions per second one Redis sustains as the load on it
 * grows, for (a) RRateLimiter, (b) this project's backend and (d) bucket4j, allowed decisions only. Each is driven
 * with more and more decisions in flight ({@link #IN_FLIGHT}), the contenders interleaved at every step, until
 * redis-server's CPU is saturated or the harness's callers are (on a machine of few CPUs the callers and Redis share
 * them: the table says which one ran out). Not pinned: the callers need every CPU they can get to load Redis.
 */
final class RedisSaturation {

    /** The steps of the ramp: decisions in flight at once. */
    static final List<Integer> IN_FLIGHT = List.of(16, 64, 256, 1_024, 4_096);

    /** Redis's CPU share from which a step counts as saturating Redis. */
    static final double SATURATED = 0.95;

    private RedisSaturation() {
    }

    /**
     * One step of one contender: medians over the rounds.
     *
     * @param perSecond decisions per second
     * @param redisCpuShare redis-server's CPU time over the run's time (1.0: one core saturated)
     * @param micros Redis µs per decision (commandstats)
     */
    record Step(String id, int inFlight, double perSecond, double redisCpuShare, double micros) {
    }

    static List<Step> run(List<RedisTimeScenario.Load> loads, RedisProbe redis, int rounds, Duration each)
            throws InterruptedException {
        List<List<double[]>> samples = new ArrayList<>();
        int steps = loads.size() * IN_FLIGHT.size();
        for (int i = 0; i < steps; i++) {
            samples.add(new ArrayList<>());
        }
        for (int round = 0; round < rounds; round++) {
            for (int level = 0; level < IN_FLIGHT.size(); level++) {
                for (int i = 0; i < loads.size(); i++) {
                    int index = (i + round) % loads.size();
                    BenchmarkMain.log("saturation: " + loads.get(index).id() + ", " + IN_FLIGHT.get(level)
                            + " in flight, round " + (round + 1));
                    samples.get(index * IN_FLIGHT.size() + level).add(RedisTimeScenario.measure(loads.get(index),
                            redis, each, IN_FLIGHT.get(level)).figures());
                }
            }
        }
        List<Step> result = new ArrayList<>();
        for (int i = 0; i < loads.size(); i++) {
            for (int level = 0; level < IN_FLIGHT.size(); level++) {
                List<double[]> runs = samples.get(i * IN_FLIGHT.size() + level);
                result.add(new Step(loads.get(i).id(), IN_FLIGHT.get(level),
                        RedisTimeScenario.median(runs, 1), RedisTimeScenario.median(runs, 2),
                        RedisTimeScenario.median(runs, 0)));
            }
        }
        return result;
    }

    static void render(StringBuilder md, List<Step> steps, List<String> ids, Duration each, int rounds) {
        md.append("\n### Decisions per second as the load on Redis grows\n\n");
        md.append(String.format(Locale.ROOT, "The allowed loads of the table above, each driven with more decisions in "
                + "flight at once, %d rounds of %d ms per step, the contenders interleaved; medians over the rounds; "
                + "redis-server and the harness share the machine's CPUs (not pinned). In brackets redis-server's CPU "
                + "share: at %.0f %% or more one Redis core is saturated, below it the callers ran out of CPU first.\n\n",
                rounds, each.toMillis(), SATURATED * 100));
        md.append("| decisions in flight |");
        ids.forEach(id -> md.append(" (").append(id).append(") decisions/s (Redis CPU) |"));
        md.append("\n| ---: |");
        ids.forEach(id -> md.append(" ---: |"));
        md.append("\n");
        for (int inFlight : IN_FLIGHT) {
            md.append(String.format(Locale.ROOT, "| %,d |", inFlight));
            for (String id : ids) {
                Step step = find(steps, id, inFlight);
                md.append(String.format(Locale.ROOT, " %,.0f (%.0f %%) |", step.perSecond(), step.redisCpuShare() * 100));
            }
            md.append("\n");
        }
        md.append("\nThe most each reached:");
        for (String id : ids) {
            Step best = steps.stream().filter(step -> step.id().equals(id))
                    .max(java.util.Comparator.comparingDouble(Step::perSecond)).orElseThrow();
            md.append(String.format(Locale.ROOT, " (%s) %,.0f decisions/s at %,d in flight, Redis CPU %.0f %% (%s);",
                    id, best.perSecond(), best.inFlight(), best.redisCpuShare() * 100,
                    best.redisCpuShare() >= SATURATED ? "Redis saturated" : "the callers ran out of CPU first"));
        }
        md.setLength(md.length() - 1);
        md.append(".\n");
    }

    private static Step find(List<Step> steps, String id, int inFlight) {
        return steps.stream().filter(step -> step.id().equals(id) && step.inFlight() == inFlight).findFirst()
                .orElseThrow(() -> new IllegalStateException("No saturation step (" + id + ") at " + inFlight));
    }
}
