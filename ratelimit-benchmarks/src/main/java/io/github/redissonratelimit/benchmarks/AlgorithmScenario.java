package io.github.redissonratelimit.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.RedisServerProcess;

/**
 * The sections on the limiting algorithms: the bursty client ({@link AlgorithmBursts}, drawn as
 * {@code algorithms.svg}), the Redis time per decision of each ({@link Algorithms#loads}) and the memory of a used-up
 * limiter of each ({@link AlgorithmMemory}); all through this project's Redis backend, without the local rejection
 * cache in front.
 */
final class AlgorithmScenario {

    /** The chart's file name in the output directory. */
    static final String CHART = "algorithms.svg";

    private AlgorithmScenario() {
    }

    static void run(RedissonClient redisson, RedisProbe redis, Results results) throws InterruptedException {
        Settings settings = results.settings;
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(redisson);
        BenchmarkMain.log("Redis time per decision, by algorithm");
        List<RedisTimeScenario.Load> loads = new ArrayList<>(Algorithms.loads(backend));
        loads.addAll(Algorithms.references(redisson));
        try (CpuPinning pinning = CpuPinning.redisAlone(redis)) {
            results.redisTimePlacement = pinning.description();
            results.algorithmTime = RedisTimeScenario.run(loads, redis, settings.redisTimeRounds(),
                    settings.redisTimeRun());
        }
        results.algorithmMemory = AlgorithmMemory.run(backend, redis, settings.quick());
        results.gcraMemory = AlgorithmMemory.gcraReference(redisson, redis);
        // last: by now the client is warm and keeps to the bursts' schedule
        results.bursts = AlgorithmBursts.run(backend, redis);
    }

    /** Writes {@link #CHART} into the output directory. */
    static void writeChart(Results results) throws java.io.IOException {
        Files.createDirectories(results.settings.outputDirectory());
        Files.writeString(results.settings.outputDirectory().resolve(CHART), AlgorithmChart.render(results.bursts,
                results.machine.processors() + " CPUs, " + results.machine.cpu() + ", Java "
                        + System.getProperty("java.runtime.version") + ", Redis " + results.redisVersion
                        + "; the harness's own redis-server on loopback"));
    }

    /**
     * {@code --only algorithms}: these sections alone, against a redis-server of their own. Writes the chart and
     * prints the sections' Markdown (the report of a full run is left as it is); returns the chart.
     */
    static Path runAlone(Settings settings) throws Exception {
        Instant started = Instant.now();
        Results results = new Results(settings, Machine.describe());
        try (RedisServerProcess server = RedisServerProcess.startOnFreePort()) {
            RedisProbe redis = new RedisProbe("127.0.0.1", server.port());
            results.redisVersion = redis.version();
            Config config = new Config();
            config.useSingleServer().setAddress("redis://127.0.0.1:" + server.port());
            RedissonClient redisson = Redisson.create(config);
            try {
                run(redisson, redis, results);
            }
            finally {
                redisson.shutdown();
            }
        }
        results.loadAfter = Machine.loadAverage();
        results.elapsed = Duration.between(started, Instant.now());
        writeChart(results);
        StringBuilder md = new StringBuilder();
        AlgorithmReport.render(md, results);
        List<String> missed = new ArrayList<>();
        AlgorithmReport.missed(results, missed);
        md.append("\n### Goals missed in this run, and why\n\n").append(missed.isEmpty() ? "None.\n" : "");
        missed.forEach(line -> md.append("- ").append(line).append("\n"));
        System.out.println(md);
        System.out.println("Load average before / after: " + results.machine.loadBefore() + " / " + results.loadAfter
                + "; " + results.elapsed.toSeconds() + " s");
        return results.settings.outputDirectory().resolve(CHART);
    }
}
