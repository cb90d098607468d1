package io.github.redissonratelimit.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.redisson.api.RedissonClient;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.RedisServerProcess;

/**
 * Goal 5 of the performance issue: the same request to a limited endpoint and to its unlimited twin, same JVM,
 * same Redis, at several connection counts, closed loop; a third twin makes one Redisson {@code GET}, what one Redis
 * round trip costs the application. The client is the JDK's {@link HttpClient} (HTTP/1.1, keep-alive), one thread per
 * connection. In each round the unlimited twin runs next to the limited endpoints (the order reversed every other
 * round), so that a limited endpoint's ratio to it is taken per round, over runs a second apart: on a machine whose
 * load moves from second to second, a ratio of medians taken over a whole minute moves with it.
 */
final class HttpScenario {

    static final List<Integer> CONNECTIONS = List.of(1, 16, 64);

    /**
     * Rounds with the leased endpoint (the lease targets), of {@link #LEASE_RUN} per endpoint: on the 2 CPUs the
     * client, Tomcat and Redis share with whatever else runs, one round's ratio to the unlimited twin moves by 0.2 to
     * 0.3 either way, from bursts of load at the scale of a second; shorter runs pair closer in time, and more of them
     * narrow the median.
     */
    static final int LEASE_ROUNDS = 24;

    static final Duration LEASE_RUN = Duration.ofMillis(400);

    /** What runs the endpoints with the leased one alone ({@link #runAlone}). */
    static final String COMMAND = "./mvnw -q -pl ratelimit-benchmarks -am -DskipTests package exec:exec "
            + "-Dbenchmark.args=\"--only http\"";

    private HttpScenario() {
    }

    /**
     * The runs of one endpoint at one connection count.
     * @param redisMicros per run, the microseconds Redis spent running commands per request (INFO commandstats)
     */
    record Runs(List<LoadRun.Result> rounds, List<Double> redisMicros) {

        double medianRedisMicros() {
            return Stats.median(redisMicros);
        }

        double medianPerSecond() {
            return Stats.median(rounds.stream().map(LoadRun.Result::perSecond).toList());
        }

        double medianMicros(double quantile) {
            return Stats.median(rounds.stream().map(run -> run.micros(quantile)).toList());
        }
    }

    /**
     * @param oneRedisCall the unlimited endpoint with one Redisson {@code GET}: one round trip as the application pays it
     * @param leased the limited endpoint with a lease, on one global limit, or null when not run
     */
    record Result(int connections, Runs limited, Runs unlimited, Runs oneRedisCall, Runs leased) {

        /** Per round, {@code endpoint}'s requests per second over the unlimited twin's run next to it. */
        List<Double> ratiosToUnlimited(Runs endpoint) {
            List<Double> ratios = new ArrayList<>();
            for (int round = 0; round < endpoint.rounds().size(); round++) {
                ratios.add(endpoint.rounds().get(round).perSecond() / unlimited.rounds().get(round).perSecond());
            }
            return ratios;
        }
    }

    /**
     * The endpoints with the leased one, on a redis-server of their own ({@code --only http}): the HTTP rows of the
     * lease targets, and each endpoint's medians.
     */
    static void runAlone(Settings settings) throws Exception {
        Instant started = Instant.now();
        String loadBefore = Machine.loadAverage();
        List<Result> results;
        try (RedisServerProcess server = RedisServerProcess.startOnFreePort()) {
            RedissonClient redisson = BenchmarkMain.newRedisson(server.port());
            try {
                results = run(redisson, new RedisProbe("127.0.0.1", server.port()), settings, true);
            }
            finally {
                redisson.shutdown();
            }
        }
        StringBuilder md = new StringBuilder("| target | measured | met |\n| --- | --- | --- |\n");
        LeaseReport.http(md, results);
        md.append("\n| connections | endpoint | req/s | p50 µs | p99 µs |\n| ---: | --- | ---: | ---: | ---: |\n");
        for (Result result : results) {
            List<Runs> runs = List.of(result.unlimited(), result.limited(), result.leased(), result.oneRedisCall());
            List<String> names = List.of("unlimited", "limited", "leased", "one GET");
            for (int i = 0; i < runs.size(); i++) {
                md.append(String.format(Locale.ROOT, "| %d | %s | %,.0f | %.0f | %.0f |%n", result.connections(),
                        names.get(i), runs.get(i).medianPerSecond(), runs.get(i).medianMicros(0.5),
                        runs.get(i).medianMicros(0.99)));
            }
        }
        md.append("\nEach round's leased / unlimited requests per second, in the order run:\n\n");
        for (Result result : results) {
            md.append(result.connections()).append(" connection(s):");
            result.ratiosToUnlimited(result.leased())
                    .forEach(ratio -> md.append(String.format(Locale.ROOT, " %.2f", ratio)));
            md.append('\n');
        }
        System.out.println(md);
        System.out.println("load average before / after: " + loadBefore + " / " + Machine.loadAverage() + "; "
                + Duration.between(started, Instant.now()).toSeconds() + " s");
    }

    static List<Result> run(RedissonClient redisson, RedisProbe redis, Settings settings) throws InterruptedException {
        return run(redisson, redis, settings, false);
    }

    /** The endpoints in turn at each connection count; {@code withLease}: the leased one as well. */
    static List<Result> run(RedissonClient redisson, RedisProbe redis, Settings settings, boolean withLease,
            String... properties) throws InterruptedException {
        List<Result> results = new ArrayList<>();
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (ConfigurableApplicationContext app = HttpApplication.start(redisson, properties)) {
            int port = ((WebServerApplicationContext) app).getWebServer().getPort();
            Contender limited = new Endpoint(client, port, "limited");
            Contender unlimited = new Endpoint(client, port, "unlimited");
            Contender oneRedisCall = new Endpoint(client, port, "redis");
            Contender leased = new Endpoint(client, port, "leased");
            // the unlimited twin next to each limited endpoint it is compared with
            List<Contender> endpoints = withLease ? List.of(leased, unlimited, limited, oneRedisCall)
                    : List.of(limited, unlimited, oneRedisCall);
            int rounds = Math.max(1, settings.rounds() / 4);
            Duration run = settings.run();
            if (withLease && !settings.quick()) {
                rounds = LEASE_ROUNDS;
                run = LEASE_RUN;
            }
            for (int connections : CONNECTIONS) {
                BenchmarkMain.log("HTTP, " + connections + " connection(s)");
                for (int user = 0; user < Users.COUNT; user++) {
                    limited.decide(user); // first sight of each user's limiter is not part of the figures
                }
                for (Contender endpoint : endpoints) {
                    LoadRun.run(endpoint, connections, settings.warmup().dividedBy(4));
                }
                Map<Contender, List<LoadRun.Result>> runs = new HashMap<>();
                Map<Contender, List<Double>> redisMicros = new HashMap<>();
                for (int round = 0; round < rounds; round++) {
                    for (int i = 0; i < endpoints.size(); i++) {
                        // reversed every other round: each endpoint runs as often before its neighbours as after
                        Contender endpoint = endpoints.get(round % 2 == 0 ? i : endpoints.size() - 1 - i);
                        CommandStats before = redis.commandStats();
                        LoadRun.Result result = checked(LoadRun.run(endpoint, connections, run));
                        CommandStats spent = redis.commandStats().minus(before).without("info");
                        runs.computeIfAbsent(endpoint, e -> new ArrayList<>()).add(result);
                        redisMicros.computeIfAbsent(endpoint, e -> new ArrayList<>())
                                .add(spent.totalMicros() / (double) result.decisions());
                    }
                }
                results.add(new Result(connections, new Runs(runs.get(limited), redisMicros.get(limited)),
                        new Runs(runs.get(unlimited), redisMicros.get(unlimited)),
                        new Runs(runs.get(oneRedisCall), redisMicros.get(oneRedisCall)),
                        withLease ? new Runs(runs.get(leased), redisMicros.get(leased)) : null));
            }
        }
        return results;
    }

    private static LoadRun.Result checked(LoadRun.Result run) {
        if (run.errors() > 0 || run.allowed() != run.decisions()) {
            throw new IllegalStateException("HTTP run: " + run.errors() + " errors, " + (run.decisions() - run.allowed())
                    + " rejections of " + run.decisions() + " requests", run.firstError());
        }
        return run;
    }

    /** One endpoint as a contender: 200 is allowed, 429 rejected, anything else an error. */
    private record Endpoint(HttpClient client, int port, String path) implements Contender {

        @Override
        public String id() {
            return path;
        }

        @Override
        public String description() {
            return "GET /" + path + "/{user}";
        }

        @Override
        public boolean decide(int user) {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/" + path + "/"
                    + Users.id(user))).GET().build();
            try {
                int status = client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                if (status == 200 || status == 429) {
                    return status == 200;
                }
                throw new IllegalStateException("HTTP " + status + " from /" + path);
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
        }
    }
}
