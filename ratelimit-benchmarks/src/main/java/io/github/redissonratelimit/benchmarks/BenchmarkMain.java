package io.github.redissonratelimit.benchmarks;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.redissonratelimit.autoconfigure.ResilienceDecorator;
import io.github.redissonratelimit.resilience.CircuitStates;

import io.github.redissonratelimit.limiter.DelegatingRateLimitBackend;
import io.github.redissonratelimit.limiter.LocalRejectionCache;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.RedisServerProcess;

/**
 * Runs every benchmark in one go against one redis-server it starts itself, and writes
 * {@code benchmarks.md}, {@code benchmarks.svg} and {@code algorithms.svg} into the output directory; with
 * {@code --only algorithms}, just the sections on the limiting algorithms ({@link AlgorithmScenario#runAlone}), with
 * {@code --only in-flight} just the section on in-flight limits ({@link InFlightScenario#runAlone}), with
 * {@code --only leases} just the section on leases ({@link LeaseScenario#runAlone}), with {@code --only http} just
 * its HTTP part ({@link HttpScenario#runAlone}), with {@code --only http-cost} what the limiter costs the server per
 * HTTP request ({@link HttpCost}).
 */
public final class BenchmarkMain {

    private BenchmarkMain() {
    }

    public static void main(String[] args) throws Exception {
        Settings settings = Settings.parse(args);
        if (settings.inFlightOnly()) {
            InFlightScenario.runAlone(settings);
        }
        else if (settings.leasesOnly()) {
            LeaseScenario.runAlone(settings);
        }
        else if (settings.httpOnly()) {
            HttpScenario.runAlone(settings);
        }
        else if (settings.httpCostOnly()) {
            HttpCost.runAlone(settings);
        }
        else {
            Path report = settings.algorithmsOnly() ? AlgorithmScenario.runAlone(settings) : run(settings);
            System.out.println("Wrote " + report.toAbsolutePath());
        }
        System.exit(0); // Redisson's and JMH's non-daemon threads must not keep the JVM alive
    }

    static Path run(Settings settings) throws Exception {
        Instant started = Instant.now();
        Results results = new Results(settings, Machine.describe());
        // first, on a machine nothing else of the run has loaded yet: run after the load phases (the 1-minute load
        // average at 7.8 after the HTTP phase) the same benchmarks measured 400-520 ns with error bars of 100-150 ns,
        // against 270-345 ns (errors 7-24 ns) when run alone
        log("JMH: interceptor without Redis");
        results.microbenchmarks = microbenchmarks(settings);
        try (RedisServerProcess server = RedisServerProcess.startOnFreePort()) {
            RedisProbe redis = new RedisProbe("127.0.0.1", server.port());
            results.redisVersion = redis.version();
            RedissonClient redisson = newRedisson(server.port());
            try {
                measure(redisson, redis, results);
            }
            finally {
                redisson.shutdown();
            }
        }
        results.loadAfter = Machine.loadAverage();
        results.elapsed = Duration.between(started, Instant.now());

        Files.createDirectories(settings.outputDirectory());
        Files.writeString(settings.outputDirectory().resolve("benchmarks.svg"), Chart.render(results));
        AlgorithmScenario.writeChart(results);
        Path markdown = settings.outputDirectory().resolve("benchmarks.md");
        Files.writeString(markdown, Report.render(results));
        return markdown;
    }

    /** Everything measured against Redis: the contenders' runs, then the flood, memory and HTTP scenarios. */
    private static void measure(RedissonClient redisson, RedisProbe redis, Results results) throws Exception {
        Settings settings = results.settings;
        try (ConfigurableApplicationContext app = BenchmarkApplication.start(redisson);
                ConfigurableApplicationContext withoutShortcut = BenchmarkApplication.start(redisson,
                        "ratelimit.local-rejection.enabled=false");
                ConfigurableApplicationContext withoutPipelining = BenchmarkApplication.start(redisson,
                        "ratelimit.pipelining.enabled=false");
                ConfigurableApplicationContext clientClock = BenchmarkApplication.start(redisson,
                        "ratelimit.clock=client");
                ConfigurableApplicationContext newUsers = BenchmarkApplication.start(redisson)) {
            NewUserContender newUserContender = new NewUserContender(newUsers.getBean(AnnotatedService.class));
            List<Contender> contenders = List.of(
                    new RawRateLimiterContender(redisson),
                    AnnotatedContender.defaults(app.getBean(AnnotatedService.class)),
                    new NaiveAspectContender(app.getBean(NaiveService.class)),
                    new Bucket4jContender(redisson),
                    AnnotatedContender.withoutPipelining(withoutPipelining.getBean(AnnotatedService.class)),
                    AnnotatedContender.clientClock(clientClock.getBean(AnnotatedService.class)),
                    newUserContender,
                    AnnotatedContender.twoLimits(app.getBean(AnnotatedService.class)));
            contenders.forEach(contender -> results.contenders.put(contender.id(), contender.description()));
            List<CircuitStates> ours = List.of(app, withoutPipelining, clientClock, newUsers).stream()
                    .map(context -> context.getBean(ResilienceDecorator.class).circuits()).toList();

            for (Contender contender : contenders) {
                log("warm-up " + contender.id());
                for (int user = 0; user < Users.COUNT; user++) {
                    contender.decide(user); // first sight of each user's limiter is not part of the figures
                }
                checked(contender, LoadRun.run(contender, 8, settings.warmup()));
            }
            results.missedInWarmUp = MissedDeadlines.of(ours);
            for (Contender contender : contenders) {
                results.monitored.put(contender.id(), monitor(contender, redis, settings.monitoredDecisions()));
            }
            MissedDeadlines before = MissedDeadlines.of(ours);
            throughputRounds(contenders, redis, results);
            results.missedInRounds = MissedDeadlines.of(ours).minus(before);
            results.newUsers = newUserContender.users();
            scenarios(app, withoutShortcut, redisson, redis, results);
        }
    }

    private static void throughputRounds(List<Contender> contenders, RedisProbe redis, Results results)
            throws InterruptedException {
        Settings settings = results.settings;
        for (int round = 0; round < settings.rounds(); round++) {
            for (int threads : settings.threadCounts()) {
                for (int i = 0; i < contenders.size(); i++) {
                    // a different contender goes first in each round: drift on a noisy machine spreads evenly
                    Contender contender = contenders.get((i + round) % contenders.size());
                    CommandStats before = redis.commandStats();
                    long redisCpu = redis.cpuNanos();
                    long clientCpu = clientCpuNanos();
                    LoadRun.Result run = checked(contender, LoadRun.run(contender, threads, settings.run()));
                    clientCpu = clientCpuNanos() - clientCpu;
                    redisCpu = redisCpu < 0 ? -1 : redis.cpuNanos() - redisCpu;
                    CommandStats delta = redis.commandStats().minus(before);
                    results.add(contender.id(), threads, run, delta, clientCpu, redisCpu);
                    log(String.format("round %d, %2d threads, %s: %,10.0f decisions/s, p50 %6.0f us, p99 %7.0f us",
                            round + 1, threads, contender.id(), run.perSecond(), run.micros(0.5), run.micros(0.99)));
                }
            }
        }
    }

    /**
     * The flood shortcut's count of rejections answered from memory, read from its layer of the composed stack (the
     * harness looks inside; the library never does), or -1 without one.
     */
    private static long localRejections(RateLimitBackend backend) {
        for (RateLimitBackend layer = backend; layer != null; layer = layer instanceof DelegatingRateLimitBackend
                delegating ? delegating.getDelegate() : null) {
            if (layer instanceof LocalRejectionCache cache) {
                return cache.localRejections();
            }
        }
        return -1;
    }

    private static void scenarios(ConfigurableApplicationContext app, ConfigurableApplicationContext withoutShortcut,
            RedissonClient redisson, RedisProbe redis, Results results) throws Exception {
        Settings settings = results.settings;
        String flood = UUID.randomUUID().toString();
        log("flood with local rejection");
        results.floodWithShortcut = FloodScenario.run(app.getBean(AnnotatedService.class), "on-" + flood,
                settings.flood(), redis);
        results.localRejections = localRejections(app.getBean(RateLimitBackend.class));
        log("flood without local rejection");
        results.floodWithoutShortcut = FloodScenario.run(withoutShortcut.getBean(AnnotatedService.class),
                "off-" + flood, settings.flood(), redis);
        results.memory = MemoryScenario.run(app.getBean("redissonRateLimitBackend", RateLimitBackend.class), redis,
                settings.quick());
        log("Redis time per decision");
        List<RedisTimeScenario.Load> loads = RedisTimeLoads.all(redisson);
        try (CpuPinning pinning = CpuPinning.redisAlone(redis)) {
            results.redisTimePlacement = pinning.description();
            results.redisTime = RedisTimeScenario.run(loads, redis, settings.redisTimeRounds(),
                    settings.redisTimeRun());
        }
        log("Redis saturation ramp");
        results.saturation = RedisSaturation.run(loads.stream().filter(RedisTimeScenario.Load::allowed).toList(), redis,
                settings.saturationRounds(), settings.redisTimeRun());
        log("instructions per decision (callgrind)");
        ScriptInstructions.count(results);
        AlgorithmScenario.run(redisson, redis, results);
        results.inFlight = InFlightScenario.run(redis, settings);
        if (!settings.quick()) {
            results.leases = LeaseScenario.run(redis, settings);
        }
        results.pingMicros = redis.pingMicros(2_000);
        results.http = HttpScenario.run(redisson, redis, settings);
    }

    /** CPU time of this JVM: callers, Redisson's I/O threads, JIT and GC. */
    static long clientCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    static RedissonClient newRedisson(int port) {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://127.0.0.1:" + port);
        return Redisson.create(config);
    }

    private static LoadRun.Result checked(Contender contender, LoadRun.Result run) {
        if (run.errors() > 0) {
            throw new IllegalStateException("Contender " + contender.id() + " failed " + run.errors() + " of "
                    + run.decisions() + " decisions", run.firstError());
        }
        if (run.allowed() != run.decisions()) {
            throw new IllegalStateException("Contender " + contender.id() + " rejected "
                    + (run.decisions() - run.allowed()) + " decisions: the throughput runs must measure allowed ones");
        }
        return run;
    }

    private static MonitorSession.Commands monitor(Contender contender, RedisProbe redis, int decisions) {
        try (MonitorSession monitor = redis.monitor()) {
            for (int i = 0; i < decisions; i++) {
                contender.decide(i % Users.COUNT);
            }
            return monitor.stop();
        }
    }

    private static Map<String, double[]> microbenchmarks(Settings settings) throws RunnerException {
        OptionsBuilder options = new OptionsBuilder();
        options.include(InterceptorBenchmark.class.getName() + ".*").threads(1).shouldFailOnError(true);
        if (settings.quick()) {
            options.forks(0).warmupIterations(0).measurementIterations(1)
                    .measurementTime(TimeValue.milliseconds(100)).verbosity(VerboseMode.SILENT);
        }
        else {
            // the first second of a fork runs at 1.7-2.3 us per call here (interpreted, then C1): three seconds of warm-up left
            // the third still 280-580 ns, so the measurement started before the code was compiled for good
            options.forks(1).warmupIterations(10).warmupTime(TimeValue.seconds(1))
                    .measurementIterations(5).measurementTime(TimeValue.seconds(1))
                    .jvmArgs("-Xms512m", "-Xmx512m");
        }
        Options built = options.build();
        Collection<RunResult> runs = new Runner(built).run();
        Map<String, double[]> scores = new LinkedHashMap<>();
        for (RunResult run : runs) {
            String name = run.getParams().getBenchmark();
            name = name.substring(name.lastIndexOf('.') + 1);
            scores.put(name, new double[] { run.getPrimaryResult().getScore(), run.getPrimaryResult().getScoreError() });
        }
        return scores;
    }

    static void log(String message) {
        System.out.println("[benchmarks] " + message);
    }
}
