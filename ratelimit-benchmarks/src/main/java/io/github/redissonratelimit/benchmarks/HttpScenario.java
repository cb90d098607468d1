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
import java.util.List;
import java.util.Locale;

import org.redisson.api.RedissonClient;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.RedisServerProcess;

/**
 * Goal 5 of the performance issue: the same request to a limited endpoint and to its unlimited twin, same JVM,
 * same Redis, at several connection counts, closed loop; rounds alternate the endpoints so that drift hits
 * all alike; a third twin makes one Redisson {@code GET}, what one Redis round trip costs the application. The client is the JDK's {@link HttpClient} (HTTP/1.1, keep-alive), one thread per connection.
 */
final class HttpScenario {

    static final List<Integer> CONNECTIONS = List.of(1, 16, 64);

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
            List<Contender> endpoints = withLease
                    ? List.of(limited, unlimited, oneRedisCall, new Endpoint(client, port, "leased"))
                    : List.of(limited, unlimited, oneRedisCall);
            int rounds = Math.max(1, settings.rounds() / 4);
            for (int connections : CONNECTIONS) {
                BenchmarkMain.log("HTTP, " + connections + " connection(s)");
                for (int user = 0; user < Users.COUNT; user++) {
                    limited.decide(user); // first sight of each user's limiter is not part of the figures
                }
                for (Contender endpoint : endpoints) {
                    LoadRun.run(endpoint, connections, settings.warmup().dividedBy(4));
                }
                List<List<LoadRun.Result>> runs = new ArrayList<>();
                List<List<Double>> redisMicros = new ArrayList<>();
                for (int i = 0; i < endpoints.size(); i++) {
                    runs.add(new ArrayList<>());
                    redisMicros.add(new ArrayList<>());
                }
                for (int round = 0; round < rounds; round++) {
                    for (int i = 0; i < endpoints.size(); i++) {
                        // a different endpoint goes first in each round: drift spreads evenly
                        int endpoint = (i + round) % endpoints.size();
                        CommandStats before = redis.commandStats();
                        LoadRun.Result run = checked(LoadRun.run(endpoints.get(endpoint), connections, settings.run()));
                        CommandStats spent = redis.commandStats().minus(before).without("info");
                        runs.get(endpoint).add(run);
                        redisMicros.get(endpoint).add(spent.totalMicros() / (double) run.decisions());
                    }
                }
                results.add(new Result(connections, new Runs(runs.get(0), redisMicros.get(0)),
                        new Runs(runs.get(1), redisMicros.get(1)), new Runs(runs.get(2), redisMicros.get(2)),
                        withLease ? new Runs(runs.get(3), redisMicros.get(3)) : null));
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
