package io.github.redissonratelimit.benchmarks;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** The report's section on in-flight limits ({@link InFlightScenario}) and its goals. */
final class InFlightReport {

    private InFlightReport() {
    }

    static void render(StringBuilder md, Results results) {
        InFlightScenario.Result measured = results.inFlight;
        md.append("\n## In-flight limits\n\n");
        md.append(String.format(Locale.ROOT, "An in-flight limit of %d (`@RateLimit(rate = %d, algorithm = IN_FLIGHT)`, "
                + "the default lease period of 30 s) on two instances: two application contexts, each on a Redisson "
                + "client of its own, with `ratelimit.backend-timeout=5s` (no decision of the loaded machine falls "
                + "back to memory). Redis's instructions per acquire, give-back and renewal are counted by "
                + "`ratelimit-benchmarks/tools/script-instructions.sh` (see [performance](performance.md#in-flight-limits)). "
                + "This section alone (printed, no report written) runs with:\n\n```bash\n%s\n```\n",
                InFlightService.LIMIT, InFlightService.LIMIT, InFlightScenario.COMMAND));
        load(md, measured);
        roundTrips(md, measured);
        latency(md, measured.latency());
        memory(md, measured.memory());
    }

    private static void load(StringBuilder md, InFlightScenario.Result measured) {
        InFlightLoad.Result load = measured.load();
        InFlightLoad.Result traced = measured.traced();
        LeaseTrace.Result trace = measured.trace();
        md.append(String.format(Locale.ROOT, "\n### %d callers on a limit of %d\n\n", InFlightScenario.CALLERS,
                InFlightService.LIMIT));
        md.append(String.format(Locale.ROOT, "%d callers, half on each instance, in a closed loop for %,d ms after a "
                + "warm-up: each call holds for a random %d to %d ms and the caller calls again at once, admitted or "
                + "refused (a refusal comes at once: no wait timeout). Run twice: as it is, then with `MONITOR` "
                + "tracing the limiter, which costs Redis time of its own. The trace replays the scripts' own commands "
                + "in the order Redis ran them: a lease counts from the `ZADD` that granted it to the `ZREM` of its "
                + "give-back, so the most permits in the leases key at once bound what any decision could count "
                + "(the scripts drop ended leases before they count); beside it, the most the scripts wrote as held. "
                + "In the JVM: the calls inside the method at once, across both instances, which hold their permits "
                + "from before they enter to after they leave.\n\n",
                InFlightScenario.CALLERS, measured.loadRun().toMillis(), InFlightLoad.SHORTEST_HOLD_MICROS / 1_000,
                InFlightLoad.LONGEST_HOLD_MICROS / 1_000));
        md.append("| run | admitted calls/s | refused calls/s | mean hold, ms | inside the method on average "
                + "| most inside the method at once | most in the leases key at once | most the scripts wrote as held "
                + "| permits held on average (Redis) |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        loadRow(md, "as it is", load, null);
        loadRow(md, "traced", traced, trace);
        long[] leases = trace.leaseMicros();
        md.append(String.format(Locale.ROOT, "\nOf the limit's %d permits, the calls held %.1f on average inside the "
                + "method and Redis %.1f (traced run). A lease lasted %.2f ms at p50 and %.2f ms at p99 from its grant "
                + "to its give-back in Redis (%,d leases), against a mean hold of %.2f ms in the method: the rest is "
                + "the grant's reply on its way to the caller and the give-back on its way to Redis, during which "
                + "the permit is neither used nor free.\n",
                InFlightService.LIMIT, traced.meanInside(), trace.meanInLeases(), Stats.quantile(leases, 0.5) / 1_000.0,
                Stats.quantile(leases, 0.99) / 1_000.0, leases.length, traced.meanHoldMillis()));
        long most = Math.max(trace.mostInLeases(), trace.mostWritten());
        md.append(String.format(Locale.ROOT, "\nGoal: at most %d permits held at once, traced in Redis: **%d** %s "
                + "(leases ended unrenewed or dropped: %d; still held when the trace stopped: %d).\n",
                InFlightService.LIMIT, most, most <= InFlightService.LIMIT ? "✔" : "✘", trace.droppedUnended(), trace.stillHeld()));
    }

    private static void loadRow(StringBuilder md, String label, InFlightLoad.Result run, LeaseTrace.Result trace) {
        md.append(String.format(Locale.ROOT, "| %s | %,.0f | %,.0f | %.2f | %.2f | %d | %s | %s | %s |\n", label,
                run.admittedPerSecond(), run.refusedPerSecond(), run.meanHoldMillis(), run.meanInside(),
                run.mostInside(), trace == null ? "–" : Long.toString(trace.mostInLeases()),
                trace == null ? "–" : Long.toString(trace.mostWritten()),
                trace == null ? "–" : String.format(Locale.ROOT, "%.2f", trace.meanInLeases())));
    }

    private static void roundTrips(StringBuilder md, InFlightScenario.Result measured) {
        InFlightLoad.Result traced = measured.traced();
        LeaseTrace.Result trace = measured.trace();
        InFlightScenario.LongCalls longCalls = measured.longCalls();
        LeaseTrace.Result renewed = longCalls.trace();
        long calls = traced.admitted() + traced.refused();
        md.append("\n### Round trips per call\n\n");
        md.append("Script calls that name the limiter, counted in the traced run's `MONITOR`, against the calls the "
                + "callers made: a decision before each call, a give-back after each admitted one (sent when the "
                + "method returned, without the caller waiting for it), and a renewal every third of a lease period "
                + "while a call runs. Then calls longer than a lease period: ");
        md.append(String.format(Locale.ROOT, "%d calls at once, half on each instance, each holding %,d ms on a limit "
                + "of %d with a lease period of %,d ms (a renewal due every %,d ms).\n\n", longCalls.calls(),
                longCalls.holdMillis(), InFlightService.LIMIT, InFlightService.LONG_LEASE_MILLIS,
                InFlightService.LONG_LEASE_MILLIS / 3));
        md.append("| run | calls | admitted | decisions per call | give-backs per admitted call "
                + "| renewals per admitted call | script calls per admitted call |\n"
                + "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        md.append(String.format(Locale.ROOT, "| %d callers, holds of %d to %d ms | %,d | %,d | %.3f | %.3f | %.3f "
                + "| %.3f |\n", InFlightScenario.CALLERS, InFlightLoad.SHORTEST_HOLD_MICROS / 1_000,
                InFlightLoad.LONGEST_HOLD_MICROS / 1_000, calls, traced.admitted(), trace.decisions() / (double) calls,
                trace.giveBacks() / (double) traced.admitted(), trace.renewals() / (double) traced.admitted(),
                perAdmitted(trace)));
        md.append(String.format(Locale.ROOT, "| %d calls of %,d ms, lease %,d ms | %d | %d | %.3f | %.3f | %.3f "
                + "| %.3f |\n", longCalls.calls(), longCalls.holdMillis(), InFlightService.LONG_LEASE_MILLIS,
                longCalls.calls(), renewed.grants(), renewed.decisions() / (double) longCalls.calls(),
                renewed.giveBacks() / (double) renewed.grants(), renewed.renewals() / (double) renewed.grants(),
                perAdmitted(renewed)));
        md.append(String.format(Locale.ROOT, "\nGoals: script calls per admitted call of a few ms: **%.3f** %s (2: its "
                + "decision and its give-back; give-backs that found their lease held: %,d of %,d); renewals per "
                + "call of %,d ms: **%.2f** %s (⌊%,d / %,d⌋ = %d); leases the instances still renewed after the "
                + "calls: **%d** %s.\n", perAdmitted(trace), perAdmitted(trace) == 2 ? "✔" : "✘", trace.givenBack(),
                trace.giveBacks(), longCalls.holdMillis(), renewed.renewals() / (double) renewed.grants(),
                renewalsAsExpected(longCalls) ? "✔" : "✘", longCalls.holdMillis(),
                InFlightService.LONG_LEASE_MILLIS / 3, longCalls.expectedRenewals(), longCalls.stillRenewed(),
                longCalls.stillRenewed() == 0 ? "✔" : "✘"));
    }

    private static double perAdmitted(LeaseTrace.Result trace) {
        return (trace.grants() + trace.giveBacks() + trace.renewals()) / (double) trace.grants();
    }

    private static boolean renewalsAsExpected(InFlightScenario.LongCalls longCalls) {
        LeaseTrace.Result trace = longCalls.trace();
        return trace.grants() == longCalls.calls()
                && trace.renewals() == longCalls.expectedRenewals() * longCalls.calls();
    }

    private static void latency(StringBuilder md, InFlightLatency.Result latency) {
        md.append("\n### The caller's latency with and without the limit\n\n");
        md.append(String.format(Locale.ROOT, "%d callers, each on a limiter of its own, call one method in a closed "
                + "loop, every call holding %d ms: under an in-flight limit of %d that a caller alone never fills, "
                + "under a sliding window no run reaches, and with no limit. %d rounds of %,d ms, the three taking "
                + "turns; medians over the rounds. The caller's latency less the method's own time is split where "
                + "the method entered and left: before it (the decision) and after it, until the caller has its "
                + "answer (for the in-flight limit, sending the give-back, whose answer the caller does not wait "
                + "for).\n\n", InFlightLatency.CALLERS, InFlightLatency.HOLD.toMillis(), InFlightService.LIMIT,
                latency.rounds(), latency.run().toMillis()));
        md.append("| limit | calls | p50 latency, µs | before the method, p50 µs | after the method, p50 µs "
                + "| after the method, p99 µs |\n| --- | ---: | ---: | ---: | ---: | ---: |\n");
        for (InFlightLatency.Variant variant : InFlightLatency.Variant.values()) {
            InFlightLatency.Rounds rounds = latency.variants().get(variant);
            md.append(String.format(Locale.ROOT, "| %s | %,d | %,.0f | %,.0f | %,.0f | %,.0f |\n", variant.label,
                    rounds.calls(), rounds.p50(), rounds.beforeP50(), rounds.afterP50(), rounds.afterP99()));
        }
        md.append(String.format(Locale.ROOT, "\nThe caller's p50 latency over the unlimited call's, per round: "
                + "**%.3f** under the in-flight limit, %.3f under the sliding window. Before the method, the in-flight "
                + "limit's decision over the sliding window's: %.2f. After the method, what sending the give-back adds "
                + "to the caller (the in-flight limit's part less the sliding window's, p50): **%.0f µs**.\n",
                latency.ratio(InFlightLatency.Variant.IN_FLIGHT, InFlightLatency.Variant.NONE),
                latency.ratio(InFlightLatency.Variant.SLIDING_WINDOW, InFlightLatency.Variant.NONE),
                latency.beforeRatio(InFlightLatency.Variant.IN_FLIGHT, InFlightLatency.Variant.SLIDING_WINDOW),
                latency.afterDifference(InFlightLatency.Variant.IN_FLIGHT, InFlightLatency.Variant.SLIDING_WINDOW)));
    }

    private static void memory(StringBuilder md, List<InFlightMemory.Result> memory) {
        md.append("\n### Memory per in-flight limiter, by leases held\n\n");
        md.append("A limit of N with the default lease period of 30 s, taken in grants of one until one is refused "
                + "(N leases held); then `MEMORY USAGE <key> SAMPLES 0` of each of its keys, named "
                + "`rate_limit:{memory:in-flight:<N>}` and suffixes: `:value` holds the permits held, the last lease "
                + "id and the config, `:permits` the leases, one member `<lease id>:<permits>:<holder>` each, scored "
                + "with its end (Redis keeps up to 128 members as a `listpack`, more as a `skiplist`). The holder here: "
                + memory.stream().map(result -> "`" + result.holder() + "` (" + result.holder().length()
                        + " characters)").distinct().collect(Collectors.joining(", ")) + ".\n\n");
        md.append("| leases held | keys | bytes | `:value` | `:permits` | its encoding | of them, key names "
                + "| bytes per lease in `:permits` |\n| ---: | --- | ---: | ---: | ---: | --- | ---: | ---: |\n");
        for (InFlightMemory.Result result : memory) {
            md.append(String.format(Locale.ROOT, "| %,d | %s | %,d | %,d | %,d | %s | %,d | %.1f |\n",
                    result.leases(), String.join(", ", result.keys().stream().map(key -> "`" + key + "`").toList()),
                    result.bytes(), result.valueBytes(), result.leasesBytes(), result.leasesEncoding(),
                    result.nameBytes(), result.leasesBytes() / (double) result.leases()));
        }
    }

    /** The section's goals that this run missed. */
    static void missed(Results results, List<String> missed) {
        InFlightScenario.Result measured = results.inFlight;
        if (measured == null) {
            return;
        }
        LeaseTrace.Result trace = measured.trace();
        long most = Math.max(trace.mostInLeases(), trace.mostWritten());
        if (most > InFlightService.LIMIT) {
            missed.add(String.format(Locale.ROOT, "In-flight limit of %d: %d permits held at once in Redis (the "
                    + "leases key at most %d, the scripts wrote at most %d)", InFlightService.LIMIT, most,
                    trace.mostInLeases(), trace.mostWritten()));
        }
        if (perAdmitted(trace) != 2) {
            missed.add(String.format(Locale.ROOT, "In-flight calls of a few ms: %.3f script calls per admitted call "
                    + "(%,d decisions granted, %,d give-backs, %,d renewals)", perAdmitted(trace), trace.grants(),
                    trace.giveBacks(), trace.renewals()));
        }
        InFlightScenario.LongCalls longCalls = measured.longCalls();
        if (!renewalsAsExpected(longCalls) || longCalls.stillRenewed() != 0) {
            missed.add(String.format(Locale.ROOT, "In-flight calls of %,d ms on a lease of %,d ms: %,d renewals for "
                    + "%,d grants (expected %d each), %d leases still renewed after the calls", longCalls.holdMillis(),
                    InFlightService.LONG_LEASE_MILLIS, longCalls.trace().renewals(), longCalls.trace().grants(),
                    longCalls.expectedRenewals(), longCalls.stillRenewed()));
        }
    }
}
