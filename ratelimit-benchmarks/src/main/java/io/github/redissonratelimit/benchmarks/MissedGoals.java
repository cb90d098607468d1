package io.github.redissonratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.github.redissonratelimit.benchmarks.BenchmarkMain.Results;

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
            double goal = threads >= 32 ? 1.5 : 1.0;
            double ratio = results.pairedRatio("b", "a", threads);
            if (ratio < goal) {
                missed.add(String.format(Locale.ROOT, "(b)/(a) at %d thread%s: %.2f < %.1f. Per decision (b) spent "
                        + "%.1f µs of client CPU and %.1f µs of Redis CPU, (a) %.1f and %.1f: %s.", threads,
                        threads == 1 ? "" : "s", ratio, goal, results.medianClientCpu("b", threads),
                        results.medianRedisCpu("b", threads), results.medianClientCpu("a", threads),
                        results.medianRedisCpu("a", threads), results.medianClientCpu("b", threads)
                                > results.medianClientCpu("a", threads) ? "the difference is on the caller's side "
                                        + "(Spring proxy, SpEL key, the script's longer argument and list reply), not "
                                        + "investigated further this round" : "the difference is in Redis"));
            }
            double bucket4j = results.pairedRatio("b", "d", threads);
            if (bucket4j < 1.4) {
                missed.add(String.format(Locale.ROOT, "(b)/(d) at %d thread%s: %.2f < 1.4. bucket4j sends 3 plain "
                        + "commands (GET, GET, SET) where (b) runs one script of %.1f commands; its Redis CPU per "
                        + "decision was %.1f µs against (b)'s %.1f.", threads, threads == 1 ? "" : "s", bucket4j,
                        results.monitored.get("b").inScriptsTotal() / (double) results.settings.monitoredDecisions(),
                        results.medianRedisCpu("d", threads), results.medianRedisCpu("b", threads)));
            }
            double firstSight = results.pairedRatio("g", "b", threads);
            if (firstSight < 0.9) {
                missed.add(String.format(Locale.ROOT, "(g)/(b) at %d thread%s: %.2f < 0.9. A first sight runs %.1f "
                        + "commands inside the script (config written and compared) against (b)'s %.1f, and Redis "
                        + "holds ever more limiters over the run.", threads, threads == 1 ? "" : "s", firstSight,
                        inScripts(results, "g"), inScripts(results, "b")));
            }
        }
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
        double[] bare = results.microbenchmarks.get("interceptor");
        if (overhead != null && overhead[0] > 250) {
            missed.add(String.format(Locale.ROOT, "Interceptor: %.0f ns > 250 ns per call (%.0f ns without the local "
                    + "rejection lookup): with the default outage policy `local` every grant is also recorded in the "
                    + "limiter's in-memory window (a map lookup, a clock read, writes under a lock), about 140 ns in a "
                    + "JMH run alone (see docs/performance.md); the limiter name and the decision's stage are paid "
                    + "on every call too.", overhead[0], bare == null ? Double.NaN : bare[0]));
        }
        for (HttpScenario.Result http : results.http) {
            double added = http.limited().medianMicros(0.5) - http.unlimited().medianMicros(0.5);
            if (added >= results.pingMicros + 50) {
                missed.add(String.format(Locale.ROOT, "HTTP at %d connection%s: the limiter added %.0f µs at p50, "
                        + "more than one Redis round trip (%.0f µs) + 50 µs: under closed-loop load on a shared 2-CPU "
                        + "machine, Tomcat, the client threads, Redis and Redisson's I/O threads compete for the same "
                        + "cores, so the wait for Redis also waits for a CPU.", http.connections(),
                        http.connections() == 1 ? "" : "s", added, results.pingMicros));
            }
        }
        md.append("\n## Goals missed in this run, and why\n\n");
        if (missed.isEmpty()) {
            md.append("None.\n");
        }
        missed.forEach(line -> md.append("- ").append(line).append("\n"));
    }

    private static double inScripts(Results results, String contender) {
        return results.monitored.get(contender).inScriptsTotal() / (double) results.settings.monitoredDecisions();
    }
}
