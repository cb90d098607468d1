package io.github.redissonratelimit.benchmarks;

import java.util.List;
import java.util.Locale;

/** The report's section on what a decision costs Redis (see {@link RedisTimeScenario}), and its goal. */
final class RedisTimeReport {

    private static final List<String> CONTENDERS = List.of("a", "b", "d");

    private RedisTimeReport() {
    }

    static void render(StringBuilder md, Results results) {
        md.append("\n## Redis time per decision\n\n");
        md.append(String.format(Locale.ROOT, "(a) raw `RRateLimiter.tryAcquireAsync()`, (b) this project's Redis backend "
                + "(its acquire script, pipelined; without the local rejection cache, so that rejected decisions reach "
                + "Redis too) and (d) bucket4j's asynchronous proxy, each driven with %,d decisions in flight over %d "
                + "users, %d rounds of %d ms, the contenders interleaved; medians over the rounds. Allowed: limits of "
                + "%,d per second that no run reaches. Rejected: limits of 1 per hour, taken. Redis µs: INFO "
                + "commandstats `usec` of the commands the contender sends (EVALSHA and EVAL; (d) also its GET), per "
                + "decision: wall time, so a redis-server that loses its CPU mid-script counts the wait (here: %s). "
                + "One core: decisions per second of redis-server CPU time (/proc), what one saturated Redis core "
                + "sustains; the Redis CPU column tells how near to saturation the run drove it.\n\n",
                RedisTimeScenario.IN_FLIGHT, Users.COUNT, results.settings.redisTimeRounds(),
                results.settings.redisTimeRun().toMillis(), Limits.GENEROUS_RATE, results.redisTimePlacement));
        md.append("| contender | Redis µs per allowed decision | Redis µs per rejected decision | allowed decisions/s "
                + "| Redis CPU | allowed decisions per Redis core second | rejected decisions per Redis core second |\n");
        md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (String id : CONTENDERS) {
            RedisTimeScenario.Result allowed = find(results, id, true);
            RedisTimeScenario.Result rejected = find(results, id, false);
            md.append(String.format(Locale.ROOT, "| (%s) | %.1f | %.1f | %,.0f | %.0f %% | %,.0f | %,.0f |\n", id,
                    allowed.micros(), rejected.micros(), allowed.perSecond(), allowed.redisCpuShare() * 100,
                    allowed.perRedisCpuSecond(), rejected.perRedisCpuSecond()));
        }
        double ratio = ratio(results);
        md.append(String.format(Locale.ROOT, "\nGoal: Redis time per allowed decision of (b) ≤ (a)'s: **%.2f×** %s.\n",
                ratio, ratio <= 1 ? "✔" : "✘"));
        renderInstructions(md, results);
        RedisSaturation.render(md, results.saturation, CONTENDERS, results.settings.redisTimeRun(),
                results.settings.saturationRounds());
    }

    private static void renderInstructions(StringBuilder md, Results results) {
        if (results.instructions.isEmpty()) {
            md.append("\nInstructions per decision: ").append(results.instructionsSkipped).append(".\n");
            return;
        }
        long raw = results.instructions.get("a");
        long ours = results.instructions.get("b");
        md.append(String.format(Locale.ROOT, "\nThe same, counted in instructions redis-server executes per allowed "
                + "decision (valgrind's callgrind: deterministic, unlike the µs above, which move with whatever else "
                + "the machine runs; one decision after the other on a fresh redis-server, %,d and %,d decisions, the "
                + "difference over the difference): (a) **%,d**, (b) **%,d**: **%.2f×** %s.\n",
                ScriptInstructions.FEW, ScriptInstructions.MANY, raw, ours, ours / (double) raw,
                ours <= raw ? "✔" : "✘"));
    }

    /** (b)'s Redis µs per allowed decision over (a)'s. */
    static double ratio(Results results) {
        return find(results, "b", true).micros() / find(results, "a", true).micros();
    }

    static RedisTimeScenario.Result find(Results results, String id, boolean allowed) {
        return results.redisTime.stream().filter(result -> result.id().equals(id) && result.allowed() == allowed)
                .findFirst().orElseThrow(() -> new IllegalStateException("No Redis time measured for (" + id + ")"));
    }
}
