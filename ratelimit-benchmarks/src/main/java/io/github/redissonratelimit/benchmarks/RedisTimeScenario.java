package io.github.redissonratelimit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.RedisServerProcess;

/**
 * Goal 1 of the Redis cost issue: what a decision costs Redis, by contender, for allowed and for rejected decisions,
 * and how many decisions one Redis core sustains. Each contender is driven open-ended with many decisions in flight
 * (pipelined by its client) over {@link Users#COUNT} users, interleaved with the others round after round; Redis's own
 * accounts tell the cost: INFO commandstats {@code usec} of the commands the contender sends (a script's commands
 * are inside its EVALSHA's time) and redis-server's CPU time from /proc.
 *
 * <p>Runs alone too (its own redis-server): {@code java -cp <harness class path>
 * io.github.redissonratelimit.benchmarks.RedisTimeScenario [rounds] [ms per run]}.
 */
final class RedisTimeScenario {

    /** Decisions in flight at once: enough to keep Redis busy on loopback with one caller thread. */
    static final int IN_FLIGHT = 1_024;

    private RedisTimeScenario() {
    }

    /** One way of deciding without blocking, and the commands whose {@code usec} are its top-level cost. */
    record Load(String id, boolean allowed, IntFunction<CompletionStage<Boolean>> decide, List<String> commands) {
    }

    /**
     * The medians over the rounds of one load.
     *
     * @param micros Redis µs per decision (commandstats, the commands the contender sends)
     * @param perSecond decisions per second with {@link #IN_FLIGHT} in flight
     * @param redisCpuShare redis-server's CPU time over the run's time (1.0: one core saturated)
     * @param perRedisCpuSecond decisions per second of redis-server CPU time: what one saturated core sustains
     * @param lowestMicros Redis µs per decision in the round with the fewest: the least disturbed by other load (a
     * command's {@code usec} is wall time, so a redis-server that loses its CPU mid-script counts the wait)
     * @param innerMicros of {@code micros}, the µs of the commands its scripts ran
     * @param innerCalls the commands its scripts ran, by name, per decision over all rounds
     */
    record Result(String id, boolean allowed, double micros, double perSecond, double redisCpuShare,
            double perRedisCpuSecond, double lowestMicros, double innerMicros, Map<String, Double> innerCalls) {
    }

    /** One round of one load: its figures ({@link #measure}) and the commands its scripts ran. */
    record Sample(double[] figures, CommandStats inner, long decisions) {
    }

    static List<Result> run(List<Load> loads, RedisProbe redis, int rounds, Duration each) throws InterruptedException {
        for (Load load : loads) {
            BenchmarkMain.log("Redis time: warm-up " + load.id() + (load.allowed() ? " allowed" : " rejected"));
            drive(load, Duration.ofMillis(Math.max(300, each.toMillis())));
        }
        List<List<Sample>> samples = new ArrayList<>();
        loads.forEach(load -> samples.add(new ArrayList<>()));
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < loads.size(); i++) {
                int index = (i + round) % loads.size(); // a different load goes first each round
                samples.get(index).add(measure(loads.get(index), redis, each));
            }
        }
        List<Result> results = new ArrayList<>();
        for (int i = 0; i < loads.size(); i++) {
            List<double[]> runs = samples.get(i).stream().map(Sample::figures).toList();
            results.add(new Result(loads.get(i).id(), loads.get(i).allowed(), median(runs, 0), median(runs, 1),
                    median(runs, 2), median(runs, 3), runs.stream().mapToDouble(run -> run[0]).min().orElseThrow(),
                    median(runs, 4), innerCalls(samples.get(i))));
        }
        return results;
    }

    /** The commands the scripts of these rounds ran, per decision. */
    private static Map<String, Double> innerCalls(List<Sample> rounds) {
        CommandStats inner = rounds.get(0).inner();
        long decisions = rounds.get(0).decisions();
        for (Sample round : rounds.subList(1, rounds.size())) {
            inner = inner.plus(round.inner());
            decisions += round.decisions();
        }
        Map<String, Double> perDecision = new TreeMap<>();
        for (String command : inner.commands()) {
            perDecision.put(command, inner.calls(command) / (double) decisions);
        }
        return perDecision;
    }

    /**
     * {micros per decision, decisions per second, Redis CPU share, decisions per Redis CPU second, micros of the
     * commands run inside its scripts per decision} of one run, and those commands.
     */
    private static Sample measure(Load load, RedisProbe redis, Duration duration) throws InterruptedException {
        return measure(load, redis, duration, IN_FLIGHT);
    }

    /** {@link #measure} with {@code inFlight} decisions in flight at once. */
    static Sample measure(Load load, RedisProbe redis, Duration duration, int inFlight) throws InterruptedException {
        CommandStats before = redis.commandStats();
        long cpu = redis.cpuNanos();
        long started = System.nanoTime();
        long decisions = drive(load, duration, inFlight);
        long elapsed = System.nanoTime() - started;
        cpu = cpu < 0 ? -1 : redis.cpuNanos() - cpu;
        CommandStats delta = redis.commandStats().minus(before);
        long micros = 0;
        for (String command : load.commands()) {
            micros += delta.micros(command);
        }
        List<String> outside = new ArrayList<>(load.commands());
        outside.addAll(List.of("info", "ping"));
        CommandStats inner = delta.without(outside.toArray(String[]::new));
        return new Sample(new double[] { micros / (double) decisions, decisions * 1e9 / elapsed,
            cpu < 0 ? Double.NaN : cpu / (double) elapsed, cpu <= 0 ? Double.NaN : decisions * 1e9 / cpu,
            inner.totalMicros() / (double) decisions }, inner, decisions);
    }

    /** Decides for the users in turn, {@link #IN_FLIGHT} at a time, for {@code duration}; the decisions made. */
    static long drive(Load load, Duration duration) throws InterruptedException {
        return drive(load, duration, IN_FLIGHT);
    }

    private static long drive(Load load, Duration duration, int most) throws InterruptedException {
        Semaphore inFlight = new Semaphore(most);
        AtomicLong done = new AtomicLong();
        AtomicLong wrong = new AtomicLong();
        long end = System.nanoTime() + duration.toNanos();
        int user = 0;
        while (System.nanoTime() < end) {
            inFlight.acquire();
            load.decide().apply(user).whenComplete((allowed, ex) -> {
                if (ex != null || allowed == null || allowed != load.allowed()) {
                    wrong.incrementAndGet();
                }
                done.incrementAndGet();
                inFlight.release();
            });
            user = user + 1 == Users.COUNT ? 0 : user + 1;
        }
        if (!inFlight.tryAcquire(most, 30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("Decisions of " + load.id() + " did not complete");
        }
        if (wrong.get() > 0) {
            throw new IllegalStateException("Contender " + load.id() + " answered " + wrong.get() + " of " + done.get()
                    + " decisions otherwise than " + (load.allowed() ? "allowed" : "rejected"));
        }
        return done.get();
    }

    /** The median over the rounds of one figure of {@link #measure}'s. */
    static double median(List<double[]> runs, int field) {
        return Stats.median(runs.stream().map(run -> run[field]).toList());
    }

    /** The table as printed by {@link #main}; the report renders its own. */
    static String describe(List<Result> results) {
        StringBuilder text = new StringBuilder();
        for (Result result : results) {
            text.append(String.format(Locale.ROOT, "(%s) %-8s %6.2f us per decision, %,9.0f decisions/s, Redis CPU "
                    + "%3.0f %%, %,9.0f decisions per Redis CPU second%n", result.id(),
                    result.allowed() ? "allowed" : "rejected", result.micros(), result.perSecond(),
                    result.redisCpuShare() * 100, result.perRedisCpuSecond()));
        }
        return text.toString();
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        Duration each = Duration.ofMillis(args.length > 1 ? Long.parseLong(args[1]) : 1_000);
        try (RedisServerProcess server = RedisServerProcess.startOnFreePort()) {
            Config config = new Config();
            config.useSingleServer().setAddress("redis://127.0.0.1:" + server.port());
            RedissonClient redisson = Redisson.create(config);
            try {
                RedisProbe redis = new RedisProbe("127.0.0.1", server.port());
                List<Load> loads = RedisTimeLoads.all(redisson);
                System.out.print(describe(run(loads, redis, rounds, each)));
            }
            finally {
                redisson.shutdown();
            }
        }
        System.exit(0);
    }
}
