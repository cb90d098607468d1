package io.github.redissonratelimit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

import io.github.redissonratelimit.test.redis.CommandStats;

/** Everything one run measured. */
final class Results {

    final Settings settings;
    final Machine machine;
    final Map<String, String> contenders = new LinkedHashMap<>();
    final Map<String, Map<Integer, List<Measured>>> runs = new LinkedHashMap<>();
    final Map<String, MonitorSession.Commands> monitored = new LinkedHashMap<>();
    String redisVersion;
    FloodScenario.Result floodWithShortcut;
    FloodScenario.Result floodWithoutShortcut;
    long localRejections;
    long newUsers;
    /** Of this project's contenders' decisions, those that missed the deadline: in the warm-ups, in the measured rounds. */
    MissedDeadlines missedInWarmUp;
    MissedDeadlines missedInRounds;
    List<MemoryScenario.Result> memory;
    List<RedisTimeScenario.Result> redisTime;
    /** The allowed loads of {@link #redisTime}, driven harder and harder ({@link RedisSaturation}). */
    List<RedisSaturation.Step> saturation;
    /** The loads of {@link Algorithms#loads}. */
    List<RedisTimeScenario.Result> algorithmTime;
    List<AlgorithmMemory.Result> algorithmMemory;
    /** The key of {@link Algorithms#GCRA_SCRIPT}, what a token bucket's memory is measured against. */
    AlgorithmMemory.Result gcraMemory;
    /**
     * Instructions redis-server executed per allowed decision by contender ({@link ScriptInstructions}); empty when
     * not counted, with the reason in {@link #instructionsSkipped}.
     */
    Map<String, Long> instructions = Map.of();
    String instructionsSkipped;
    /** How redis-server and the harness were placed on the CPUs while Redis's time per decision was measured. */
    String redisTimePlacement;
    AlgorithmBursts.Result bursts;
    /** The section on in-flight limits ({@link InFlightScenario}). */
    InFlightScenario.Result inFlight;

    /** The section on leases; null in quick mode, which leaves it out (its two JVMs would double the smoke test). */
    LeaseScenario.Result leases;
    double pingMicros;
    List<HttpScenario.Result> http;
    Map<String, double[]> microbenchmarks;
    String loadAfter;
    Duration elapsed;

    Results(Settings settings, Machine machine) {
        this.settings = settings;
        this.machine = machine;
    }

    void add(String contender, int threads, LoadRun.Result run, CommandStats commands, long clientCpuNanos,
            long redisCpuNanos) {
        runs.computeIfAbsent(contender, id -> new LinkedHashMap<>())
                .computeIfAbsent(threads, count -> new ArrayList<>())
                .add(new Measured(run.decisions(), run.perSecond(), run.micros(0.5), run.micros(0.99),
                        commands.calls("evalsha") + commands.calls("eval"), commands.totalExcept("info", "ping"),
                        (commands.micros("evalsha") + commands.micros("eval")) / (double) run.decisions(),
                        clientCpuNanos / 1_000.0 / run.decisions(),
                        redisCpuNanos < 0 ? Double.NaN : redisCpuNanos / 1_000.0 / run.decisions()));
    }

    List<Measured> of(String contender, int threads) {
        return runs.getOrDefault(contender, Map.of()).getOrDefault(threads, List.of());
    }

    double medianPerSecond(String contender, int threads) {
        return Stats.median(of(contender, threads).stream().map(Measured::perSecond).toList());
    }

    double medianP50(String contender, int threads) {
        return Stats.median(of(contender, threads).stream().map(Measured::p50Micros).toList());
    }

    double medianP99(String contender, int threads) {
        return Stats.median(of(contender, threads).stream().map(Measured::p99Micros).toList());
    }

    double medianClientCpu(String contender, int threads) {
        return Stats.median(of(contender, threads).stream().map(Measured::clientCpuMicros).toList());
    }

    /** Redis's time running the contender's script calls per decision ({@code usec} of INFO commandstats). */
    double medianScriptMicros(String contender, int threads) {
        return Stats.median(of(contender, threads).stream().map(Measured::scriptMicros).toList());
    }

    double medianRedisCpu(String contender, int threads) {
        return Stats.median(of(contender, threads).stream().map(Measured::redisCpuMicros).toList());
    }

    /** First quartile of the rounds' decisions per second. */
    double lowerQuartile(String contender, int threads) {
        return Stats.percentile(of(contender, threads).stream().map(Measured::perSecond).toList(), 0.25);
    }

    double upperQuartile(String contender, int threads) {
        return Stats.percentile(of(contender, threads).stream().map(Measured::perSecond).toList(), 0.75);
    }

    /**
     * Median over the rounds of {@code contender}'s throughput divided by {@code other}'s in the same round:
     * the two ran back to back, so load from elsewhere on the machine mostly hits both alike.
     */
    double pairedRatio(String contender, String other, int threads) {
        List<Measured> mine = of(contender, threads);
        List<Measured> theirs = of(other, threads);
        List<Double> ratios = new ArrayList<>();
        for (int round = 0; round < Math.min(mine.size(), theirs.size()); round++) {
            ratios.add(mine.get(round).perSecond() / theirs.get(round).perSecond());
        }
        return Stats.median(ratios);
    }

    /** The same for CPU time per decision, client and Redis together (lower is better). */
    double pairedCpuRatio(String contender, String other, int threads) {
        List<Measured> mine = of(contender, threads);
        List<Measured> theirs = of(other, threads);
        List<Double> ratios = new ArrayList<>();
        for (int round = 0; round < Math.min(mine.size(), theirs.size()); round++) {
            ratios.add((mine.get(round).clientCpuMicros() + mine.get(round).redisCpuMicros())
                    / (theirs.get(round).clientCpuMicros() + theirs.get(round).redisCpuMicros()));
        }
        return Stats.median(ratios);
    }

    /** Over every throughput run of the contender. */
    double scriptCallsPerDecision(String contender) {
        return perDecision(contender, Measured::scriptCalls);
    }

    double commandsPerDecision(String contender) {
        return perDecision(contender, Measured::commands);
    }

    /** Decisions of the contenders {@code ids} over all their measured runs. */
    long decisions(List<String> ids) {
        return ids.stream().flatMap(id -> runs.getOrDefault(id, Map.of()).values().stream())
                .flatMap(List::stream).mapToLong(Measured::decisions).sum();
    }

    private double perDecision(String contender, ToLongFunction<Measured> counter) {
        long decisions = 0;
        long counted = 0;
        for (List<Measured> measured : runs.getOrDefault(contender, Map.of()).values()) {
            for (Measured run : measured) {
                decisions += run.decisions();
                counted += counter.applyAsLong(run);
            }
        }
        return decisions == 0 ? Double.NaN : (double) counted / decisions;
    }

    /** One contender's run at one thread count. */
    record Measured(long decisions, double perSecond, double p50Micros, double p99Micros, long scriptCalls,
            long commands, double scriptMicros, double clientCpuMicros, double redisCpuMicros) {
    }
}
