package io.github.redissonratelimit.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.redisson.api.RedissonClient;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.RedisServerProcess;

/**
 * The section on leases ({@code --only leases}): two JVMs (this one and a {@link LeaseJvm}), each an application on the
 * same Redis, on one hot limit with a lease, its twin without and a raw {@code RRateLimiter}; the leased decision
 * against raw {@code tryAcquire} at one thread; two JVMs of equal demand on a limit that demand just exceeds (and one
 * it stays below); a JVM killed with {@code kill -9} mid-run; the HTTP endpoint with a lease. Every permit spent is
 * logged ({@link SpendLog}) and the law checked at spend time by Redis's clock ({@link SpendLaw}).
 */
final class LeaseScenario {

    static final String COMMAND = "./mvnw -q -pl ratelimit-benchmarks -am -DskipTests package exec:exec "
            + "-Dbenchmark.args=\"--only leases\"";

    static final int THREADS = 32;

    /** Callers of a paced load, per JVM. */
    static final int PACED_THREADS = 4;

    static final List<String> HOT = List.of("leased", "unleased", "raw");

    /**
     * One run of both JVMs on one decision.
     *
     * @param scriptCalls EVALSHA and EVAL Redis ran during the run (INFO commandstats)
     * @param redisCpu redis-server's CPU time over the run's wall time
     */
    record Run(String decision, LeaseLoad.Result here, LeaseLoad.Result there, long scriptCalls, double redisCpu,
            SpendLaw.Result law, ReceiptLaw.Result byGrant) {

        LeaseLoad.Result both() {
            return here.plus(there);
        }

        double callsPerDecision() {
            return scriptCalls / (double) both().decisions();
        }

        double callsPerSecond() {
            return scriptCalls * 1e9 / both().elapsedNanos();
        }
    }

    /**
     * Everything measured: the hot runs by round, (b)/(a) at one thread by round, the runs above and below the limit,
     * the kill run ({@code killedAfterNanos} its kill from its start; {@code survivorAfterKill} the survivor's spends
     * from one interval and one lease period after the kill to the end), the HTTP table.
     */
    record Result(List<Run> hot, List<Double> oneThreadRatios, Run above, Run below, Run killed,
            long killedAfterNanos, long survivorAfterKill, long killRunNanos, List<HttpScenario.Result> http) {
    }

    private final RedisProbe redis;
    private final LeaseDeciders here;
    private final LeaseJvm there;
    private final Path logs;
    private int runs;
    private long survivorAfterKill;

    private LeaseScenario(RedisProbe redis, LeaseDeciders here, LeaseJvm there, Path logs) {
        this.redis = redis;
        this.here = here;
        this.there = there;
        this.logs = logs;
    }

    static void runAlone(Settings settings) throws Exception {
        Instant started = Instant.now();
        String loadBefore = Machine.loadAverage();
        Result result;
        try (RedisServerProcess server = RedisServerProcess.startOnFreePort()) {
            RedisProbe redis = new RedisProbe("127.0.0.1", server.port());
            result = run(redis, settings);
        }
        System.out.println(LeaseReport.render(result, settings));
        System.out.println("load average before / after: " + loadBefore + " / " + Machine.loadAverage() + "; "
                + Duration.between(started, Instant.now()).toSeconds() + " s");
    }

    static Result run(RedisProbe redis, Settings settings) throws Exception {
        RedissonClient redisson = BenchmarkMain.newRedisson(redis.port());
        Path logs = Files.createTempDirectory("lease-spends");
        try (ConfigurableApplicationContext app = BenchmarkApplication.start(redisson, LeaseDeciders.PROPERTIES);
                LeaseJvm there = LeaseJvm.start(redis.port())) {
            LeaseScenario scenario = new LeaseScenario(redis, new LeaseDeciders(app, redisson), there, logs);
            boolean quick = settings.quick();
            long run = (quick ? Duration.ofMillis(300) : Duration.ofSeconds(2)).toNanos();
            BenchmarkMain.log("leases: warm-up");
            for (String decision : HOT) {
                scenario.both(decision, THREADS, quick ? run : 3 * run, 0, 0);
            }
            List<Run> hot = new ArrayList<>();
            int rounds = quick ? 1 : 3;
            for (int round = 0; round < rounds; round++) {
                for (int i = 0; i < HOT.size(); i++) {
                    Run measured = scenario.both(HOT.get((i + round) % HOT.size()), THREADS, run, 0, 0);
                    hot.add(measured);
                    BenchmarkMain.log(String.format("leases: round %d, %s: %,.0f decisions/s, %.4f script calls per "
                            + "decision, most in a window %,d of %,d", round + 1, measured.decision(),
                            measured.both().perSecond(), measured.callsPerDecision(), measured.law().mostInAWindow(),
                            measured.law().rate()));
                }
            }
            BenchmarkMain.log("leases: one thread, (b) leased against (a) raw tryAcquire");
            List<double[]> oneThread = oneThread(redisson, scenario.here, rounds * 3,
                    quick ? Duration.ofMillis(200) : settings.run());
            List<Double> ratios = oneThread.stream().map(pair -> pair[1] / pair[0]).toList();

            long near = LeasedService.NEAR_RATE;
            long paced = (quick ? Duration.ofSeconds(1) : Duration.ofSeconds(5)).toNanos();
            BenchmarkMain.log("leases: two JVMs of equal demand above and below the limit");
            Run above = scenario.both("near:above", PACED_THREADS, paced, near * 11 / 20, near * 11 / 20);
            Run below = scenario.both("near:below", PACED_THREADS, paced, near * 9 / 20, near * 9 / 20);

            BenchmarkMain.log("leases: kill -9 of one JVM mid-run");
            long killRun = (quick ? Duration.ofMillis(1_500) : Duration.ofMillis(4_000)).toNanos();
            long killAfter = killRun * 2 / 5;
            Run killed = scenario.killed(killRun, killAfter, near);
            long survivorAfter = scenario.survivorAfterKill;

            BenchmarkMain.log("leases: HTTP");
            List<HttpScenario.Result> http = HttpScenario.run(redisson, redis, settings, true);
            return new Result(hot, ratios, above, below, killed, killAfter, survivorAfter, killRun, http);
        }
        finally {
            redisson.shutdown();
            try (var files = Files.list(logs)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
            }
            Files.delete(logs);
        }
    }

    /** Both JVMs run {@code decision} from the same instant; {@code perSecond} 0 for a closed loop. */
    private Run both(String decision, int threads, long nanos, long perSecondHere, long perSecondThere)
            throws Exception {
        Window window = Window.next(nanos);
        Path hereLog = logs.resolve("here-" + runs);
        Path thereLog = logs.resolve("there-" + runs++);
        SpendLaw.requireSameClock(redis);
        CommandStats before = redis.commandStats();
        long cpu = redis.cpuNanos();
        there.run(decision, threads, nanos, perSecondThere, window.startAt(), thereLog, window.originMicros(),
                window.spanMicros());
        try (SpendLog log = window.create(hereLog); ReceiptLog receipts = window.receipts(hereLog)) {
            here.recordTo(receipts);
            LeaseLoad.Result mine = LeaseLoad.run(here.decider(decision), threads, window.startAt(), nanos,
                    perSecondHere, log);
            LeaseLoad.Result theirs = there.result();
            return finish(decision, mine, theirs, before, cpu, log, receipts, thereLog, window);
        }
        finally {
            here.recordTo(null);
        }
    }

    /** This JVM paced at 1.1 times the rate, the other at 0.55 times, killed {@code killAfter} into the run. */
    private Run killed(long nanos, long killAfter, long rate) throws Exception {
        Window window = Window.next(nanos);
        Path hereLog = logs.resolve("here-kill");
        Path thereLog = logs.resolve("there-kill");
        SpendLaw.requireSameClock(redis);
        CommandStats before = redis.commandStats();
        long cpu = redis.cpuNanos();
        long startAt = window.startAt();
        there.run("near:kill", PACED_THREADS, nanos, rate * 11 / 20, startAt, thereLog, window.originMicros(),
                window.spanMicros());
        try (SpendLog log = window.create(hereLog); ReceiptLog receipts = window.receipts(hereLog)) {
            here.recordTo(receipts);
            Thread killer = new Thread(() -> {
                try {
                    Thread.sleep(Math.max(0, (startAt + killAfter - System.nanoTime()) / 1_000_000));
                    there.kill();
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }, "lease-killer");
            killer.start();
            LeaseLoad.Result mine = LeaseLoad.run(here.decider("near:kill"), PACED_THREADS, startAt, nanos,
                    rate * 11 / 10, log);
            killer.join();
            // the survivor's spends from one interval and one lease after the kill to the end: the window is its own
            long started = window.startMicros();
            survivorAfterKill = log.startedBetween(started + killAfter / 1_000 + 1_000_000
                    + LeasedService.LEASE_MILLIS * 1_000, started + nanos / 1_000);
            LeaseLoad.Result nothing = new LeaseLoad.Result(0, 0, 0, 0, null);
            return finish("near:kill", mine, nothing, before, cpu, log, receipts, thereLog, window);
        }
        finally {
            here.recordTo(null);
        }
    }

    private Run finish(String decision, LeaseLoad.Result mine, LeaseLoad.Result theirs, CommandStats before,
            long cpu, SpendLog mineLog, ReceiptLog mineReceipts, Path thereLog, Window window) {
        if (mine.errors() + theirs.errors() > 0) {
            throw new IllegalStateException("Leases, " + decision + ": " + (mine.errors() + theirs.errors())
                    + " decisions failed", mine.firstError());
        }
        CommandStats delta = redis.commandStats().minus(before);
        long redisCpu = cpu < 0 ? -1 : redis.cpuNanos() - cpu;
        long elapsed = Math.max(mine.elapsedNanos(), theirs.elapsedNanos());
        SpendLaw.requireSameClock(redis);
        long rate = decision.startsWith("near:") ? LeasedService.NEAR_RATE : LeasedService.HOT_RATE;
        SpendLaw.Result law;
        ReceiptLaw.Result byGrant;
        try (SpendLog theirsLog = SpendLog.open(thereLog, window.originMicros(), window.spanMicros());
                ReceiptLog theirReceipts = ReceiptLog.forRun(thereLog, window.originMicros(), window.spanMicros(),
                        false)) {
            law = SpendLaw.check(List.of(mineLog, theirsLog), rate, 1_000_000);
            byGrant = ReceiptLaw.check(List.of(mineReceipts, theirReceipts), rate, 1_000,
                    LeasedService.LEASE_MILLIS);
        }
        return new Run(decision, mine, theirs, delta.calls("evalsha") + delta.calls("eval"),
                redisCpu < 0 ? -1 : redisCpu / (double) elapsed, law, byGrant);
    }

    /**
     * A run's start ({@code startAt}, by {@code nanoTime}, 200 ms from now) and its logs' span by the wall clock: from
     * now to one second after the run's planned end ({@code startMicros} the wall clock's µs at {@code startAt}).
     */
    private record Window(long startAt, long originMicros, long spanMicros) {

        private static final long DELAY_MICROS = 200_000;

        static Window next(long nanos) {
            long now = System.nanoTime();
            long origin = SpendLog.wallMicros();
            return new Window(now + DELAY_MICROS * 1_000, origin, DELAY_MICROS + nanos / 1_000 + 1_000_000);
        }

        long startMicros() {
            return originMicros + DELAY_MICROS;
        }

        SpendLog create(Path file) {
            return SpendLog.create(file, originMicros, spanMicros);
        }

        ReceiptLog receipts(Path spendLog) {
            return ReceiptLog.forRun(spendLog, originMicros, spanMicros, true);
        }
    }

    /** Per round, (a) raw {@code tryAcquire} per user and (b) the leased hot limit, one thread each, in turn. */
    private static List<double[]> oneThread(RedissonClient redisson, LeaseDeciders deciders, int rounds,
            Duration run) throws InterruptedException {
        Contender raw = new RawRateLimiterContender(redisson);
        java.util.function.BooleanSupplier leased = deciders.decider("leased");
        Contender leasedContender = new Contender() {
            @Override
            public String id() {
                return "leased";
            }

            @Override
            public String description() {
                return "the leased hot limit";
            }

            @Override
            public boolean decide(int user) {
                return leased.getAsBoolean();
            }
        };
        for (int user = 0; user < Users.COUNT; user++) {
            raw.decide(user);
        }
        LoadRun.run(raw, 1, run);
        LoadRun.run(leasedContender, 1, run);
        List<double[]> pairs = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            double[] pair = new double[2];
            boolean rawFirst = round % 2 == 0;
            pair[rawFirst ? 0 : 1] = LoadRun.run(rawFirst ? raw : leasedContender, 1, run).perSecond();
            pair[rawFirst ? 1 : 0] = LoadRun.run(rawFirst ? leasedContender : raw, 1, run).perSecond();
            pairs.add(pair);
        }
        return pairs;
    }
}
