package io.github.redissonratelimit.benchmarks;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** The report's section on the limiting algorithms ({@link AlgorithmScenario}) and their goals. */
final class AlgorithmReport {

    /** A token bucket decision's Redis time and memory, a fixed window decision's Redis time: the goals. */
    static final double TOKEN_BUCKET_MICROS = 6;
    static final long TOKEN_BUCKET_BYTES = 100;
    static final double FIXED_WINDOW_MICROS = 3;

    static final String COMMAND = "./mvnw -q -pl ratelimit-benchmarks -am -DskipTests package exec:exec "
            + "-Dbenchmark.args=\"--only algorithms\"";

    private AlgorithmReport() {
    }

    static void render(StringBuilder md, Results results) {
        md.append("\n## Algorithms\n\n");
        md.append("Sliding window (the default), token bucket and fixed window, each decided by this project's Redis "
                + "backend without the local rejection cache in front. These sections alone (no report written, they "
                + "are printed; the chart is written) run with:\n\n```bash\n").append(COMMAND).append("\n```\n");
        time(md, results);
        memory(md, results);
        bursts(md, results);
    }

    private static void time(StringBuilder md, Results results) {
        Settings settings = results.settings;
        md.append("\n### Redis time per decision, by algorithm\n\n");
        md.append(String.format(Locale.ROOT, "Measured as in [Redis time per decision](#redis-time-per-decision): %,d "
                + "decisions in flight over %d users, %d rounds of %d ms, the loads interleaved; medians over the "
                + "rounds. Allowed: limits of %,d per second (a token bucket as large) that no run reaches. Rejected: "
                + "limits of 1 per day, taken. Redis µs: INFO commandstats `usec` of the script calls, per decision: "
                + "wall time, so a redis-server that loses its CPU to other processes mid-script counts the wait "
                + "(here: %s); in brackets the round least disturbed. Redis CPU µs: redis-server's CPU time (/proc) "
                + "per decision, which includes reading requests and writing replies. The references, driven alike, "
                + "tell what this machine's Redis takes for the least a decision could cost: one `INCR` of a counter "
                + "per user, one call of a script that only returns 1, and a minimal GCRA "
                + "(`ratelimit-benchmarks/src/main/resources/%s`: `TIME`, `GET` and `SET PX` of a timestamp, no "
                + "config kept, no free permits or refill time in its reply).\n\n",
                RedisTimeScenario.IN_FLIGHT, Users.COUNT, settings.redisTimeRounds(), settings.redisTimeRun().toMillis(),
                Limits.GENEROUS_RATE, results.redisTimePlacement, Algorithms.GCRA_SCRIPT));
        md.append("| algorithm | Redis µs per allowed decision (lowest round) | Redis µs per rejected decision (lowest "
                + "round) | Redis CPU µs per allowed decision | Redis CPU µs per rejected decision | allowed decisions/s "
                + "| Redis CPU |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (Algorithms algorithm : Algorithms.values()) {
            row(md, algorithm.label(), find(results, algorithm, true), find(results, algorithm, false));
        }
        row(md, "reference: `INCR`", find(results, Algorithms.INCR, true), null);
        row(md, "reference: " + Algorithms.RETURN_1, find(results, Algorithms.RETURN_1, true), null);
        row(md, "reference: " + Algorithms.GCRA, find(results, Algorithms.GCRA, true),
                find(results, Algorithms.GCRA, false));
        double bucket = slowest(results, Algorithms.TOKEN_BUCKET);
        double window = slowest(results, Algorithms.FIXED_WINDOW);
        md.append(String.format(Locale.ROOT, "\nGoals: Redis time per token bucket decision ≤ %.0f µs: **%.1f µs** %s; "
                + "per fixed window decision ≤ %.0f µs: **%.1f µs** %s (the slower median of allowed and rejected).\n",
                TOKEN_BUCKET_MICROS, bucket, bucket <= TOKEN_BUCKET_MICROS ? "✔" : "✘", FIXED_WINDOW_MICROS, window,
                window <= FIXED_WINDOW_MICROS ? "✔" : "✘"));
    }

    private static void row(StringBuilder md, String label, RedisTimeScenario.Result allowed,
            RedisTimeScenario.Result rejected) {
        md.append(String.format(Locale.ROOT, "| %s | %.1f (%.1f) | %s | %.1f | %s | %,.0f | %.0f %% |\n", label,
                allowed.micros(), allowed.lowestMicros(), rejected == null ? "–"
                        : String.format(Locale.ROOT, "%.1f (%.1f)", rejected.micros(), rejected.lowestMicros()),
                1e6 / allowed.perRedisCpuSecond(), rejected == null ? "–"
                        : String.format(Locale.ROOT, "%.1f", 1e6 / rejected.perRedisCpuSecond()),
                allowed.perSecond(), allowed.redisCpuShare() * 100));
    }

    private static void memory(StringBuilder md, Results results) {
        List<Long> rates = results.algorithmMemory.stream().map(AlgorithmMemory.Result::rate).distinct().toList();
        md.append("\n### Memory per limiter, by algorithm\n\n");
        md.append("`rate` permits per hour (a token bucket of `rate`), taken in grants of one until one is refused; "
                + "then `MEMORY USAGE <key> SAMPLES 0` summed over every key of the limiter. Its keys are named "
                + "`rate_limit:{memory:<algorithm>:<rate>}` and suffixes: the name is part of each key's cost. The "
                + "reference is the minimal GCRA's one key, named as long as the token bucket's: it holds one "
                + "timestamp whatever the rate, so it is measured once.\n\n");
        md.append("| algorithm | keys |");
        rates.forEach(rate -> md.append(String.format(Locale.ROOT, " bytes at rate %,d |", rate)));
        md.append(" of the last, key names | of the last, string values |\n| --- | --- |");
        rates.forEach(rate -> md.append(" ---: |"));
        md.append(" ---: | ---: |\n");
        for (Algorithms algorithm : Algorithms.values()) {
            List<AlgorithmMemory.Result> rows = results.algorithmMemory.stream()
                    .filter(result -> result.algorithm() == algorithm).toList();
            AlgorithmMemory.Result largest = rows.get(rows.size() - 1);
            md.append("| ").append(algorithm.label()).append(" | ").append(keys(largest)).append(" |");
            rows.forEach(row -> md.append(String.format(Locale.ROOT, " %,d |", row.bytes())));
            md.append(String.format(Locale.ROOT, " %d | %d |\n", largest.nameBytes(), largest.stringBytes()));
        }
        AlgorithmMemory.Result gcra = results.gcraMemory;
        md.append("| reference: " + Algorithms.GCRA + " | `:value` |");
        rates.forEach(rate -> md.append(String.format(Locale.ROOT, " %,d |", gcra.bytes())));
        md.append(String.format(Locale.ROOT, " %d | %d |\n", gcra.nameBytes(), gcra.stringBytes()));
        long most = results.algorithmMemory.stream().filter(row -> row.algorithm() == Algorithms.TOKEN_BUCKET)
                .mapToLong(AlgorithmMemory.Result::bytes).max().orElseThrow();
        md.append(String.format(Locale.ROOT, "\nGoal: a token bucket ≤ %d B per limiter at every rate: **%d B** %s.\n",
                TOKEN_BUCKET_BYTES, most, most <= TOKEN_BUCKET_BYTES ? "✔" : "✘"));
    }

    /** The algorithms' goals this run missed, each with what it measured about the cause. */
    static void missed(Results results, List<String> missed) {
        for (Algorithms algorithm : List.of(Algorithms.TOKEN_BUCKET, Algorithms.FIXED_WINDOW)) {
            double goal = algorithm == Algorithms.TOKEN_BUCKET ? TOKEN_BUCKET_MICROS : FIXED_WINDOW_MICROS;
            RedisTimeScenario.Result allowed = find(results, algorithm, true);
            RedisTimeScenario.Result rejected = find(results, algorithm, false);
            if (Math.max(allowed.micros(), rejected.micros()) > goal) {
                missed.add(String.format(Locale.ROOT, "Redis time per %s decision: %.1f µs allowed, %.1f µs rejected "
                        + "> %.0f µs (lowest rounds %.1f and %.1f). The commands its script runs took %.1f and %.1f µs "
                        + "of them (%s per allowed decision); the rest is Lua around those commands. In the same run "
                        + "a script that only returns 1 took %.1f µs, an `INCR` %.1f µs, the minimal GCRA %.1f µs "
                        + "allowed and %.1f µs rejected.", algorithm.label(),
                        allowed.micros(), rejected.micros(), goal, allowed.lowestMicros(), rejected.lowestMicros(),
                        allowed.innerMicros(), rejected.innerMicros(), commands(allowed),
                        find(results, Algorithms.RETURN_1, true).micros(), find(results, Algorithms.INCR, true).micros(),
                        find(results, Algorithms.GCRA, true).micros(), find(results, Algorithms.GCRA, false).micros()));
            }
        }
        AlgorithmMemory.Result largest = results.algorithmMemory.stream()
                .filter(row -> row.algorithm() == Algorithms.TOKEN_BUCKET)
                .max(java.util.Comparator.comparingLong(AlgorithmMemory.Result::bytes)).orElseThrow();
        if (largest.bytes() > TOKEN_BUCKET_BYTES) {
            missed.add(String.format(Locale.ROOT, "Memory per token bucket: %d B > %d B at rate %,d; of them %d B are "
                    + "the key's name and %d B the string it holds; the rest is Redis's own bookkeeping of a key "
                    + "with a TTL. The minimal GCRA's key, named alike, takes %d B.", largest.bytes(),
                    TOKEN_BUCKET_BYTES, largest.rate(), largest.nameBytes(), largest.stringBytes(),
                    results.gcraMemory.bytes()));
        }
    }

    private static String commands(RedisTimeScenario.Result result) {
        return result.innerCalls().isEmpty() ? "none" : result.innerCalls().entrySet().stream()
                .map(entry -> String.format(Locale.ROOT, "`%s` × %.2f", entry.getKey().toUpperCase(Locale.ROOT),
                        entry.getValue()))
                .collect(Collectors.joining(", "));
    }

    private static void bursts(StringBuilder md, Results results) {
        AlgorithmBursts.Result bursts = results.bursts;
        md.append("\n### The same bursty client against each algorithm\n\n");
        md.append(String.format(Locale.ROOT, "A limit of %d per second (a token bucket of %d) and one client for %d "
                + "ms: one request every %d ms, and bursts of %s, starting on a whole second of Redis's clock; each "
                + "request goes to one limiter of each algorithm at once. Counted per %d ms: requests by when they were "
                + "scheduled, grants by when their reply arrived (at most %.0f ms after the schedule in this run); the "
                + "most in any second: over any 10 consecutive buckets.\n\n", AlgorithmBursts.RATE,
                AlgorithmBursts.RATE, AlgorithmBursts.SPAN_MS, AlgorithmBursts.STEADY_EVERY_MS, burstList(),
                AlgorithmBursts.BUCKET_MS, bursts.lagMillis()));
        md.append("| algorithm | requests | granted | most granted in any second |\n| --- | ---: | ---: | ---: |\n");
        for (Algorithms algorithm : Algorithms.values()) {
            int[] granted = bursts.granted().get(algorithm.ordinal());
            md.append(String.format(Locale.ROOT, "| %s | %d | %d | %d |\n", algorithm.label(),
                    bursts.total(bursts.requests()), bursts.total(granted), mostInAnySecond(granted)));
        }
        md.append("\n![permits granted over time by each algorithm](").append(AlgorithmScenario.CHART).append(")\n");
    }

    /** The most grants in any run of buckets that spans one second. */
    static int mostInAnySecond(int[] granted) {
        int span = 1_000 / AlgorithmBursts.BUCKET_MS;
        int most = 0;
        for (int from = 0; from + span <= granted.length; from++) {
            most = Math.max(most, Arrays.stream(granted, from, from + span).sum());
        }
        return most;
    }

    private static String burstList() {
        return Arrays.stream(AlgorithmBursts.BURSTS)
                .map(burst -> String.format(Locale.ROOT, "%d at %,d ms", burst[1], burst[0]))
                .collect(Collectors.joining(", "));
    }

    private static String keys(AlgorithmMemory.Result result) {
        return result.keys().stream().map(suffix -> suffix.isEmpty() ? "the name" : "`" + suffix + "`")
                .collect(Collectors.joining(", "));
    }

    private static double slowest(Results results, Algorithms algorithm) {
        return Math.max(find(results, algorithm, true).micros(), find(results, algorithm, false).micros());
    }

    static RedisTimeScenario.Result find(Results results, Algorithms algorithm, boolean allowed) {
        return find(results, algorithm.label(), allowed);
    }

    private static RedisTimeScenario.Result find(Results results, String id, boolean allowed) {
        return results.algorithmTime.stream().filter(result -> result.id().equals(id) && result.allowed() == allowed)
                .findFirst().orElseThrow(() -> new IllegalStateException("No Redis time measured for " + id));
    }
}
