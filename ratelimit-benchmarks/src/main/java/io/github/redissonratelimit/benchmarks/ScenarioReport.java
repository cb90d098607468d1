package io.github.redissonratelimit.benchmarks;

import java.util.Locale;
import java.util.Map;

/** The report's sections on what was measured beside the throughput runs: flood, HTTP, memory and JMH. */
final class ScenarioReport {

    private ScenarioReport() {
    }

    static void render(StringBuilder md, Results results) {
        flood(md, results);
        http(md, results);
        memory(md, results);
        interceptorOverhead(md, results);
    }

    /** The flood with and without the local rejection cache. */
    private static void flood(StringBuilder md, Results results) {
        Settings settings = results.settings;
        FloodScenario.Result on = results.floodWithShortcut;
        FloodScenario.Result off = results.floodWithoutShortcut;
        md.append("\n## A tenfold flood\n\n");
        md.append(String.format(Locale.ROOT, "One user calls `@RateLimit(rate = %d, window = \"1s\")` %d times per "
                + "second for %d ms through the Spring proxy (an open loop paced over 4 threads), once with the local "
                + "rejection cache (the default) and once with `ratelimit.local-rejection.enabled=false`. Round trips per "
                + "rejection = (script calls − allowed calls) / rejections: each allowed call costs its one acquire.\n\n",
                Limits.FLOOD_RATE, Limits.FLOOD_RATE * FloodScenario.FACTOR, settings.flood().toMillis()));
        md.append("| local rejection | calls/s offered | allowed | rejected | round trips per rejection | "
                + "all commands per rejection (upper bound) | rejection p50 µs | rejection p99 µs |\n");
        md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        floodRow(md, "on (default)", on);
        floodRow(md, "off", off);
        md.append(String.format(Locale.ROOT, "\nGoal: ≤ 0.005 Redis round trips per rejected request: **%.4f** %s "
                + "(%d rejections were answered from memory).\n",
                on.roundTripsPerRejection(), on.roundTripsPerRejection() <= 0.005 ? "✔" : "✘", results.localRejections));
        md.append("Rejection latency includes building the `RateLimitExceededException` the proxy throws.\n\n");
    }

    /** The limited endpoint against its unlimited and one-{@code GET} twins. */
    private static void http(StringBuilder md, Results results) {
        Settings settings = results.settings;
        md.append("## Through HTTP\n\n");
        md.append(String.format(Locale.ROOT, "`GET /limited/{user}` (one `@RateLimit(key = \"'http:' + #user\")`, the "
                + "starter's defaults: 429 handler, `RateLimit` headers with the permits left) against its unlimited "
                + "twin `GET /unlimited/{user}`, and a third twin `GET /redis/{user}` that makes one Redisson `GET` "
                + "(what one Redis round trip costs the application through its client: the caller hands the command to "
                + "Redisson's I/O thread and waits for it); same application on embedded Tomcat, same JVM and Redis; "
                + "the JDK's `HttpClient` over HTTP/1.1 keep-alive, one thread per connection, closed loop; %d rounds "
                + "of %d ms per endpoint, the three in turn; medians over the rounds. A raw Redis round trip (median "
                + "of 2,000 sequential `PING`s on a plain socket, no client threads): **%.0f µs**. Redis µs per "
                + "request: the time Redis spent running commands during the endpoint's runs (INFO commandstats "
                + "`usec`), divided by its requests.%n%n",
                Math.max(1, settings.rounds() / 4), settings.run().toMillis(), results.pingMicros));
        md.append("| connections | limited req/s | unlimited req/s | one-`GET` req/s | limited p50 µs | unlimited p50 µs "
                + "| added p50 µs | one `GET` added p50 µs | limited p99 µs | unlimited p99 µs | added p99 µs "
                + "| Redis µs per request, limited / one `GET` "
                + "| goal: added p50 < raw round trip + 50 µs | added p50 < one `GET` + 50 µs |\n");
        md.append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n");
        for (HttpScenario.Result http : results.http) {
            double addedP50 = http.limited().medianMicros(0.5) - http.unlimited().medianMicros(0.5);
            double getP50 = http.oneRedisCall().medianMicros(0.5) - http.unlimited().medianMicros(0.5);
            double addedP99 = http.limited().medianMicros(0.99) - http.unlimited().medianMicros(0.99);
            md.append(String.format(Locale.ROOT, "| %d | %,.0f | %,.0f | %,.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f "
                    + "| %.0f | %.1f / %.1f | %s | %s |\n",
                    http.connections(), http.limited().medianPerSecond(), http.unlimited().medianPerSecond(),
                    http.oneRedisCall().medianPerSecond(), http.limited().medianMicros(0.5),
                    http.unlimited().medianMicros(0.5), addedP50, getP50,
                    http.limited().medianMicros(0.99), http.unlimited().medianMicros(0.99), addedP99,
                    http.limited().medianRedisMicros(), http.oneRedisCall().medianRedisMicros(),
                    addedP50 < results.pingMicros + 50 ? "✔" : "✘", addedP50 < getP50 + 50 ? "✔" : "✘"));
        }
    }

    /** What one full limiter takes in Redis. */
    private static void memory(StringBuilder md, Results results) {
        md.append("\n## Memory per limiter\n\n");
        md.append("One `OVERALL` limiter of one hour with a full window (`rate` grants of one permit, taken a few "
                + "thousand at a time), each key measured with `MEMORY USAGE <key> SAMPLES 0` (exact), in bytes. The "
                + "grants of one slice of the window (1/1024 of it) share one member of the grants ZSET, so a "
                + "limiter never holds more than 1,025 of them whatever its rate. Goals: ≤ 700 B at rate 10, "
                + "≤ 256 KiB at any rate.\n\n");
        md.append("| rate | config hash | `:value` | `:permits` | total | members | `:permits` encoding | goal |\n");
        md.append("| ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n");
        for (MemoryScenario.Result memory : results.memory) {
            boolean met = memory.total() <= (memory.rate() <= 10 ? 700 : 256 * 1024);
            md.append(String.format(Locale.ROOT, "| %,d | %,d | %,d | %,d | %,d | %,d | %s | %s |\n", memory.rate(),
                    memory.config(), memory.value(), memory.permits(), memory.total(), memory.members(),
                    memory.encoding(), met ? "✔" : "✘"));
        }
        md.append("\n");
    }

    /** The interceptor's own cost, from JMH. */
    private static void interceptorOverhead(StringBuilder md, Results results) {
        Settings settings = results.settings;
        md.append("## Interceptor overhead without Redis (JMH)\n\n");
        md.append("`InterceptorBenchmark`: the `@RateLimit(key = \"#userId\")` method on a backend that allows "
                + "everything in memory, so only the interceptor's work is left (operation lookup, SpEL key, "
                + "limiter name, local rejection lookup). Average time per call, 1 thread")
                .append(settings.quick() ? " (quick mode: no fork, no warm-up)" : ", 1 fork, 10 × 1 s warm-up, 5 × 1 s measurement")
                .append(", run first, before the harness starts Redis or loads the machine")
                .append(". `localRejection` and `springProxyRejectedFromMemory`: calls for limiters Redis reported "
                        + "out of permits, answered from memory (the second through the proxy, which throws "
                        + "`RateLimitExceededException`). `interceptorWithoutLocalPolicy`: the default wiring with "
                        + "`ratelimit.on-backend-error=allow`, which keeps no in-memory record of the grants (the default "
                        + "outage policy `local` keeps one, for when Redis gives no decision).\n\n| benchmark | ns per call | ± (99.9%) |\n| --- | ---: | ---: |\n");
        for (Map.Entry<String, double[]> entry : results.microbenchmarks.entrySet()) {
            md.append(String.format(Locale.ROOT, "| `%s` | %.1f | %.1f |\n", entry.getKey(), entry.getValue()[0],
                    Double.isNaN(entry.getValue()[1]) ? 0 : entry.getValue()[1]));
        }
        double[] overhead = results.microbenchmarks.get("interceptorWithLocalRejection");
        if (overhead != null) {
            md.append(String.format(Locale.ROOT, "\nGoal: ≤ 250 ns per call for a `#userId` key: **%.0f ns** %s "
                    + "(`interceptorWithLocalRejection`, the default wiring).\n", overhead[0], overhead[0] <= 250 ? "✔" : "✘"));
        }
    }

    private static void floodRow(StringBuilder md, String label, FloodScenario.Result flood) {
        md.append(String.format(Locale.ROOT, "| %s | %,.0f | %d | %d | %.4f | %.3f | %.1f | %.1f |\n", label,
                flood.offeredPerSecond(), flood.allowed(), flood.rejected(), flood.roundTripsPerRejection(),
                flood.commandsPerRejection(), flood.rejectionMicros(0.5), flood.rejectionMicros(0.99)));
    }
}
