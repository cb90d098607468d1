package io.github.redissonratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The performance issue's goals that this run missed, each with what the same run measured about the cause: the
 * CPU each side spent per decision, the commands inside the scripts, the latency. Written by the harness, so the
 * reasons are this run's figures, not prose that could go stale.
 */
final class MissedGoals {

    private MissedGoals() {
    }

    static void render(StringBuilder md, Results results) {
        List<String> missed = new ArrayList<>();
        for (int threads : results.settings.threadCounts()) {
            missedRatios(results, threads, missed);
        }
        missedOtherGoals(results, missed);
        missedRedisTime(results, missed);
        AlgorithmReport.missed(results, missed);
        InFlightReport.missed(results, missed);
        for (HttpScenario.Result http : results.http) {
            missedOverHttp(results, http, missed);
        }
        md.append("\n## Goals missed in this run, and why\n\n");
        if (missed.isEmpty()) {
            md.append("None.\n");
        }
        missed.forEach(line -> md.append("- ").append(line).append("\n"));
    }

    /** The throughput ratios at {@code threads} that missed their goal. */
    private static void missedRatios(Results results, int threads, List<String> missed) {
        double goal = threads >= 32 ? 1.5 : 1.0;
        double ratio = results.pairedRatio("b", "a", threads);
        if (ratio < goal) {
            missed.add(String.format(Locale.ROOT, "(b)/(a) at %d thread%s: %.2f < %.1f. Per decision (b) spent "
                    + "%.1f µs of client CPU and %.1f µs of Redis CPU (%.1f µs of it running its script), (a) %.1f, "
                    + "%.1f and %.1f. %s What was tried on each side: [the acquire script](performance.md#the-acquire-"
                    + "script) and [the decorator stack](performance.md#what-the-decorator-stack-costs).", threads,
                    threads == 1 ? "" : "s", ratio, goal,
                    results.medianClientCpu("b", threads), results.medianRedisCpu("b", threads),
                    results.medianScriptMicros("b", threads), results.medianClientCpu("a", threads),
                    results.medianRedisCpu("a", threads), results.medianScriptMicros("a", threads),
                    scriptReason(results, "b", "a", threads)));
        }
        double bucket4j = results.pairedRatio("b", "d", threads);
        if (bucket4j < 1.4) {
            missed.add(String.format(Locale.ROOT, "(b)/(d) at %d thread%s: %.2f < 1.4. MONITOR saw bucket4j "
                    + "send GET, GET and SET per decision where (b) runs one script of %.1f commands; Redis spent "
                    + "%.1f µs per decision in (d)'s script calls against %.1f in (b)'s, Redis CPU per decision "
                    + "%.1f µs for (d) against (b)'s %.1f, client CPU %.1f against %.1f.", threads,
                    threads == 1 ? "" : "s", bucket4j,
                    results.monitored.get("b").inScriptsTotal() / (double) results.settings.monitoredDecisions(),
                    results.medianScriptMicros("d", threads), results.medianScriptMicros("b", threads),
                    results.medianRedisCpu("d", threads), results.medianRedisCpu("b", threads),
                    results.medianClientCpu("d", threads), results.medianClientCpu("b", threads)));
        }
        double firstSight = results.pairedRatio("g", "b", threads);
        if (firstSight < 0.9) {
            missed.add(String.format(Locale.ROOT, "(g)/(b) at %d thread%s: %.3f < 0.9. Per decision (g) spent "
                    + "%.1f µs of client CPU against (b)'s %.1f, and %.1f µs of Redis CPU against %.1f (%.1f against "
                    + "%.1f running its script: a first sight writes the declared config and creates the limiter's "
                    + "keys; see performance.md for what was tried on the client's side).",
                    threads, threads == 1 ? "" : "s", firstSight, results.medianClientCpu("g", threads),
                    results.medianClientCpu("b", threads), results.medianRedisCpu("g", threads),
                    results.medianRedisCpu("b", threads), results.medianScriptMicros("g", threads),
                    results.medianScriptMicros("b", threads)));
        }
    }

    /** The two-limit call's latency, the flood's round trips and the interceptor's overhead. */
    private static void missedOtherGoals(Results results, List<String> missed) {
        int one = results.settings.threadCounts().get(0);
        double pair = results.medianP50("h", one) / results.medianP50("b", one);
        if (pair > 1.25) {
            missed.add(String.format(Locale.ROOT, "(h), two limits in one script call: its p50 is %.2fx (b)'s. Both "
                    + "limits are decided in one acquire-many script call, but Redis still runs each limiter's "
                    + "decision (%.1f commands inside scripts per call against %.1f) and the caller handles two "
                    + "decisions.", pair, inScripts(results, "h"), inScripts(results, "b")));
        }
        if (results.floodWithShortcut.roundTripsPerRejection() > 0.005) {
            missed.add(String.format(Locale.ROOT, "Flood: %.4f round trips per rejection > 0.005: each time a "
                    + "remembered rejection ends, every thread of the flood that arrives before the next answer asks "
                    + "Redis.", results.floodWithShortcut.roundTripsPerRejection()));
        }
        double[] overhead = results.microbenchmarks.get("interceptorWithLocalRejection");
        double[] withoutLocal = results.microbenchmarks.get("interceptorWithoutLocalPolicy");
        if (overhead != null && overhead[0] > 250) {
            missed.add(String.format(Locale.ROOT, "Interceptor: %.0f ns > 250 ns per call. The same wiring without the "
                    + "default outage policy's record of the grants (`ratelimit.on-backend-error=allow`) took %.0f ns: "
                    + "under the `local` policy every grant is also written to the limiter's in-memory window (a map "
                    + "lookup, a clock read, writes under a lock), so that this instance knows its share of the window "
                    + "when Redis stops answering; the rest is the operation lookup, the SpEL key, the limiter name, the "
                    + "local rejection lookup and the outcome of every call.", overhead[0],
                    withoutLocal == null ? Double.NaN : withoutLocal[0]));
        }
    }

    /** (b)'s acquire script against RRateLimiter's tryAcquire, in Redis time per allowed decision. */
    private static void missedRedisTime(Results results, List<String> missed) {
        double ratio = RedisTimeReport.ratio(results);
        String counted = results.instructions.isEmpty() ? "Instructions per decision: " + results.instructionsSkipped
                : String.format(Locale.ROOT, "Counted in instructions redis-server executes, (b) %,d against (a)'s "
                        + "%,d (%.2f×)", results.instructions.get("b"), results.instructions.get("a"),
                        results.instructions.get("b") / (double) results.instructions.get("a"));
        if (ratio > 1 || results.instructions.getOrDefault("b", 0L) > results.instructions.getOrDefault("a", 0L)) {
            missed.add(String.format(Locale.ROOT, "Redis time per allowed decision: (b) %.1f µs is %.2f× (a)'s %.1f µs. "
                    + "%s. (b)'s script runs fewer commands than RRateLimiter's (see the commands table: it reads "
                    + "`TIME`, the config once, the counter, the two oldest grants with their scores, then writes the "
                    + "grant, the counter and its copy, and reads the grants' TTL; RRateLimiter reads four config "
                    + "fields one by one and renews three TTLs on every call), with more Lua around them. Two of its "
                    + "commands give guarantees RRateLimiter's script does not: the counter's copy in the config hash "
                    + "(a counter written by RRateLimiter's own API is recounted from the grants) and the `PTTL` of the "
                    + "lazy TTL renewal; see [performance](performance.md#the-acquire-script) for what each costs and "
                    + "what was tried.", RedisTimeReport.find(results, "b", true).micros(), ratio,
                    RedisTimeReport.find(results, "a", true).micros(), counted));
        }
    }

    private static void missedOverHttp(Results results, HttpScenario.Result http, List<String> missed) {
        double added = http.limited().medianMicros(0.5) - http.unlimited().medianMicros(0.5);
        double roundTrip = http.oneRedisCall().medianMicros(0.5) - http.unlimited().medianMicros(0.5);
        if (added >= roundTrip + 50) {
            double redisMore = http.limited().medianRedisMicros() - http.oneRedisCall().medianRedisMicros();
            missed.add(String.format(Locale.ROOT, "HTTP at %d connection%s: the limiter added %.0f µs at p50, more "
                    + "than one Redis round trip as the application pays it (%.0f µs: the twin endpoint making one "
                    + "Redisson `GET`) + 50 µs; the raw round trip (`PING` on a socket, no client threads) is %.0f "
                    + "µs. Redis spent %.1f µs per limited request running its script against %.1f µs per `GET`: "
                    + "%.0f of the %.0f µs the limited endpoint's p50 is above the one-`GET` twin's; %s",
                    http.connections(), http.connections() == 1 ? "" : "s", added, roundTrip, results.pingMicros,
                    http.limited().medianRedisMicros(), http.oneRedisCall().medianRedisMicros(), redisMore,
                    added - roundTrip,
                    http.connections() == 1 ? "the rest is the client's work around the decision (interceptor, "
                            + "outcome, headers, the decision's stages on Redisson's I/O thread), not broken down "
                            + "further."
                            : "with the 2 CPUs saturated by Tomcat, the client threads, Redisson's I/O threads and "
                                    + "Redis, latency follows the CPU each request costs on both sides (requests per "
                                    + String.format(Locale.ROOT, "second %.2f of the twin's).",
                                            http.limited().medianPerSecond() / http.oneRedisCall().medianPerSecond())));
        }
    }

    /** What the script calls of the two contenders cost Redis, as this run measured it. */
    private static String scriptReason(Results results, String ours, String theirs, int threads) {
        double mine = results.medianScriptMicros(ours, threads);
        double other = results.medianScriptMicros(theirs, threads);
        if (mine > other) {
            return String.format(Locale.ROOT, "(%s)'s script ran %.1f µs longer per decision in Redis: it reads Redis's "
                    + "`TIME` (grants stamped with one clock, the exactness issue) and the oldest grant left with its score "
                    + "(the exact time of the next free permit, which every reply carries), compares the stored config "
                    + "with the declared one and checks the keys' TTL; RRateLimiter's takes the caller's clock and does "
                    + "none of these.", ours,
                    mine - other);
        }
        return String.format(Locale.ROOT, "(%s)'s script was not slower in Redis (%.1f against %.1f µs): the difference "
                + "is in the client (Spring proxy, interceptor, the decision's stages) and in waiting.", ours, mine, other);
    }

    private static double inScripts(Results results, String contender) {
        return results.monitored.get(contender).inScriptsTotal() / (double) results.settings.monitoredDecisions();
    }
}
