package io.github.redissonratelimit.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.redisson.api.RedissonClient;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.RedisServerProcess;

/**
 * The section on in-flight limits: {@link InFlightLoad} on two instances, once as it runs and once traced in Redis
 * ({@link LeaseTrace}); the renewals of calls longer than a lease period; the caller's latency with and without the
 * limit ({@link InFlightLatency}); the memory of a limiter by leases held ({@link InFlightMemory}). The instances are
 * two application contexts, each on a Redisson client of its own, with a backend timeout of 5 s, so that no decision
 * of a loaded machine runs into the deadline and is decided in memory, without a lease in Redis.
 */
final class InFlightScenario {

    static final String COMMAND = "./mvnw -q -pl ratelimit-benchmarks -am -DskipTests package exec:exec "
            + "-Dbenchmark.args=\"--only in-flight\"";

    /** Callers of the load, half on each instance. */
    static final int CALLERS = 32;

    /** The calls of the renewal run: as many as the limit, half on each instance, all at once. */
    static final int LONG_CALLS = InFlightService.LIMIT;

    private static final long SEED = 38;

    /**
     * Everything measured.
     *
     * @param load the load as it runs; {@code traced} the same load with {@code MONITOR} tracing the limiter
     * @param longCalls the renewal run
     * @param memory the memory by leases held
     */
    record Result(Duration loadRun, InFlightLoad.Result load, InFlightLoad.Result traced, LeaseTrace.Result trace,
            LongCalls longCalls, InFlightLatency.Result latency, List<InFlightMemory.Result> memory) {
    }

    /**
     * The renewal run: {@code calls} calls at once, each holding {@code holdMillis} on a limiter whose lease period is
     * {@link InFlightService#LONG_LEASE_MILLIS}, traced; {@code stillRenewed} the leases the instances renewed once
     * every call had ended.
     */
    record LongCalls(int calls, long holdMillis, LeaseTrace.Result trace, int stillRenewed) {

        /** Renewals each call should have sent: one every third of the lease period from its grant to its end. */
        long expectedRenewals() {
            return holdMillis / (InFlightService.LONG_LEASE_MILLIS / 3);
        }
    }

    private InFlightScenario() {
    }

    static Result run(RedisProbe redis, Settings settings) throws Exception {
        List<RedissonClient> clients = new ArrayList<>();
        List<ConfigurableApplicationContext> instances = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                RedissonClient client = BenchmarkMain.newRedisson(redis.port());
                clients.add(client);
                instances.add(BenchmarkApplication.start(client, "ratelimit.backend-timeout=5s"));
            }
            List<InFlightService> services = instances.stream()
                    .map(context -> context.getBean(InFlightService.class)).toList();
            List<RedissonRateLimitBackend> backends = instances.stream().map(context -> context.getBean(
                    RateLimitAutoConfiguration.REDISSON_BACKEND, RedissonRateLimitBackend.class)).toList();
            boolean quick = settings.quick();
            Duration loadRun = quick ? Duration.ofMillis(300) : Duration.ofSeconds(5);
            String export = InFlightService.EXPORT_KEY;

            BenchmarkMain.log("in-flight: " + CALLERS + " callers on a limit of " + InFlightService.LIMIT);
            checked(InFlightLoad.run(services, CALLERS, quick ? Duration.ofMillis(200) : Duration.ofSeconds(2), SEED));
            settle(backends, redis, export);
            InFlightLoad.Result load = checked(InFlightLoad.run(services, CALLERS, loadRun, SEED + 1));
            settle(backends, redis, export);
            BenchmarkMain.log("in-flight: the same, traced");
            LeaseTrace.Result trace;
            InFlightLoad.Result traced;
            try (LeaseTrace tracing = LeaseTrace.start(redis, export)) {
                traced = checked(InFlightLoad.run(services, CALLERS, loadRun, SEED + 2));
                settle(backends, redis, export);
                trace = tracing.stop();
            }

            BenchmarkMain.log("in-flight: calls longer than a lease period");
            LongCalls longCalls = longCalls(services, backends, redis, quick ? 1_250 : 2_250);

            BenchmarkMain.log("in-flight: the caller's latency with and without the limit");
            InFlightLatency.Result latency = InFlightLatency.run(services.get(0), quick ? 1 : settings.redisTimeRounds(),
                    quick ? Duration.ofMillis(100) : settings.run());
            List<InFlightMemory.Result> memory = InFlightMemory.run(backends.get(0), redis, quick);
            return new Result(loadRun, load, traced, trace, longCalls, latency, memory);
        }
        finally {
            instances.forEach(ConfigurableApplicationContext::close);
            clients.forEach(RedissonClient::shutdown);
        }
    }

    private static LongCalls longCalls(List<InFlightService> services, List<RedissonRateLimitBackend> backends,
            RedisProbe redis, long holdMillis) throws InterruptedException {
        try (LeaseTrace tracing = LeaseTrace.start(redis, InFlightService.LONG_KEY)) {
            List<Thread> calls = new ArrayList<>();
            RuntimeException[] failure = new RuntimeException[1];
            for (int i = 0; i < LONG_CALLS; i++) {
                InFlightService service = services.get(i % services.size());
                Thread call = new Thread(() -> {
                    try {
                        service.longCall(Duration.ofMillis(holdMillis).toNanos());
                    }
                    catch (RuntimeException ex) {
                        failure[0] = ex;
                    }
                }, "in-flight-long-" + i);
                call.setDaemon(true);
                calls.add(call);
                call.start();
            }
            for (Thread call : calls) {
                call.join();
            }
            if (failure[0] != null) {
                throw new IllegalStateException("A call longer than its lease period failed", failure[0]);
            }
            int stillRenewed = settle(backends, redis, InFlightService.LONG_KEY);
            return new LongCalls(LONG_CALLS, holdMillis, tracing.stop(), stillRenewed);
        }
    }

    /**
     * Waits up to 10 s for the instances to stop renewing leases (each stops as it sends a give-back) and for the
     * give-backs to empty the leases of the limiter of {@code key} in Redis; returns the leases still renewed.
     */
    private static int settle(List<RedissonRateLimitBackend> backends, RedisProbe redis, String key)
            throws InterruptedException {
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while ((held(backends) > 0 || leasesInRedis(redis, key) > 0) && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        return held(backends);
    }

    /** The leases in Redis of the limiters whose names contain {@code key}. */
    private static long leasesInRedis(RedisProbe redis, String key) {
        return redis.keys("*" + key + "*").stream().filter(name -> name.endsWith(":permits"))
                .mapToLong(redis::members).sum();
    }

    private static int held(List<RedissonRateLimitBackend> backends) {
        return backends.stream().mapToInt(RedissonRateLimitBackend::heldLeases).sum();
    }

    private static InFlightLoad.Result checked(InFlightLoad.Result run) {
        if (run.errors() > 0) {
            throw new IllegalStateException("In-flight load: " + run.errors() + " calls failed", run.firstError());
        }
        return run;
    }

    /**
     * {@code --only in-flight}: this section alone, against a redis-server of its own. Prints its Markdown (the
     * report of a full run is left as it is).
     */
    static void runAlone(Settings settings) throws Exception {
        Instant started = Instant.now();
        Results results = new Results(settings, Machine.describe());
        try (RedisServerProcess server = RedisServerProcess.startOnFreePort()) {
            RedisProbe redis = new RedisProbe("127.0.0.1", server.port());
            results.redisVersion = redis.version();
            results.inFlight = run(redis, settings);
        }
        results.loadAfter = Machine.loadAverage();
        results.elapsed = Duration.between(started, Instant.now());
        StringBuilder md = new StringBuilder();
        InFlightReport.render(md, results);
        List<String> missed = new ArrayList<>();
        InFlightReport.missed(results, missed);
        md.append("\n### Goals missed in this run, and why\n\n").append(missed.isEmpty() ? "None.\n" : "");
        missed.forEach(line -> md.append("- ").append(line).append("\n"));
        System.out.println(md);
        System.out.println("Redis " + results.redisVersion + "; load average before / after: "
                + results.machine.loadBefore() + " / " + results.loadAfter + "; " + results.elapsed.toSeconds() + " s");
    }
}
