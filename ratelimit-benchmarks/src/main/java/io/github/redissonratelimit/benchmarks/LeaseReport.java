package io.github.redissonratelimit.benchmarks;

import java.util.List;
import java.util.Locale;

/** The Markdown of the section on leases ({@link LeaseScenario}): its runs and a table of its targets. */
final class LeaseReport {

    private LeaseReport() {
    }

    static String render(LeaseScenario.Result result, Settings settings) {
        StringBuilder md = new StringBuilder("## Leases\n\n");
        md.append(String.format(Locale.ROOT, "Two JVMs (the harness and a child process on the same classpath), each a "
                + "Spring application with its own Redisson client on the same Redis, `ratelimit.backend-timeout=5s`%s. "
                + "The hot limit: `@RateLimit(rate = 1000000, window = \"1s\", lease = \"%s\")` on one key, beside its "
                + "twin without a lease and a raw `RRateLimiter` of the same rate; %d callers per JVM in a closed loop, "
                + "%d rounds of %s, the three in turn. Every allowed decision's call is logged by the wall clock, which "
                + "Redis's `TIME` reads, and checked against the law by Redis's clock (see below). "
                + "Reproduce with:\n\n```bash\n%s\n```\n\n",
                settings.quick() ? " (quick mode: figures are not meaningful)" : "", LeasedService.LEASE,
                LeaseScenario.THREADS, result.hot().size() / LeaseScenario.HOT.size(),
                settings.quick() ? "300 ms" : "2 s", LeaseScenario.COMMAND));
        md.append("Why a lease of " + LeasedService.LEASE + ": a leased permit counts in Redis's window from its "
                + "grant until one interval after its lease's end, so a limit loses up to lease / (interval + lease) "
                + "of its rate (1 % here) against the 5 % allowed; and an instance calls Redis at most twice per "
                + "lease period (the lease and the refund of what it did not spend), 200 calls per second at 10 ms "
                + "whatever the rate: 0.02 calls per decision from 10,000 decisions per second per instance on. A "
                + "shorter lease calls more often and waits for Redis more often; a longer one under-admits more.\n\n");
        md.append("| round | decision | decisions/s, both JVMs | of them this JVM | allowed | script calls per decision "
                + "| script calls/s | Redis CPU | most spent in 1 s: bound / surely | windows (one per µs) over the rate: by "
                + "the bound / surely |\n| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (int i = 0; i < result.hot().size(); i++) {
            row(md, String.valueOf(i / LeaseScenario.HOT.size() + 1), result.hot().get(i));
        }
        md.append("\n| run | decision | decisions/s, both JVMs | of them this JVM | allowed | script calls per decision "
                + "| script calls/s | Redis CPU | most spent in 1 s: bound / surely | windows (one per µs) over the rate: by "
                + "the bound / surely |\n| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        row(md, "above", result.above());
        row(md, "below", result.below());
        row(md, "kill -9", result.killed());
        md.append(String.format(Locale.ROOT, "\nAbove / below: a limit of %,d per second, both JVMs paced (%d callers "
                + "each, open loop) at 0.55 / 0.45 times it each for %s. Kill -9: this JVM paced at 1.1 times the "
                + "rate, the other at 0.55 times, killed (SIGKILL: no refund, no shutdown) %.1f s into a run of %.1f s; "
                + "its spends up to its death are in its log. Script calls: INFO commandstats, EVALSHA + EVAL, every "
                + "lease, plain decision and refund. Redis CPU: redis-server's CPU time over the run's.\n",
                LeasedService.NEAR_RATE, LeaseScenario.PACED_THREADS, settings.quick() ? "1 s" : "5 s",
                result.killedAfterNanos() / 1e9, result.killRunNanos() / 1e9));
        md.append("\n**The law, checked at spend time by Redis's clock.** A permit is spent somewhere between the start "
                + "and the end of the call that got it (a leased one inside the call, from the lease in memory; a "
                + "plain one when Redis granted it). Redis's clock is its `gettimeofday`: the machine's wall clock, "
                + "to the µs. Each JVM reads that same clock (`Instant.now()`) at both ends of every allowed call and "
                + "counts them per µs in a file mapped in memory (so a JVM killed with -9 leaves its log); before "
                + "and after each run, each of 200 `TIME` readings must lie between the wall clock's readings around "
                + "it, or the run fails. So a spend's µs by Redis's clock lies between its call's two µs, and for "
                + "every window (a, a + 1 s], one per µs of a, the check counts the spends whose span touches it "
                + "(the bound: never below the true count) and those whose span lies inside it (surely: never above "
                + "it). No window over the rate by the bound is a sound 0 violations; one surely over it is a "
                + "violation; one over it only by the bound is over by calls in flight at its edges: a leased call "
                + "takes about a µs, but one preempted on the loaded machine or stopped by a GC pause stays open for "
                + "milliseconds, so at exact saturation a window can stay undecided by a few permits. Why not "
                + "`System.nanoTime()`: an offset between it and Redis's clock that stays the same would not change "
                + "the most spends in any window (the law is about every window, and all shift alike), but what "
                + "proves it stayed the same? `TIME` read between two `nanoTime` readings bounds the offset, and so "
                + "its change, only to a round trip (40 to 60 µs here), a slack at each window's edges that at "
                + "saturation holds a few permits; reading Redis's own clock leaves no offset to bound.\n");
        targets(md, result);
        return md.toString();
    }

    private static void row(StringBuilder md, String label, LeaseScenario.Run run) {
        LeaseLoad.Result both = run.both();
        SpendLaw.Result law = run.law();
        md.append(String.format(Locale.ROOT, "| %s | %s | %,.0f | %,.0f | %,d of %,d | %.4f | %,.0f | %s | %,d / %,d "
                + "of %,d | %,d / %,d |\n", label, run.decision(), both.perSecond(), run.here().perSecond(),
                both.allowed(), both.decisions(), run.callsPerDecision(), run.callsPerSecond(),
                run.redisCpu() < 0 ? "–" : String.format(Locale.ROOT, "%.0f %%", 100 * run.redisCpu()),
                law.mostInAWindow(), law.mostSurely(), law.rate(), law.windowsOver(), law.windowsSurelyOver()));
    }

    private static void targets(StringBuilder md, LeaseScenario.Result result) {
        List<LeaseScenario.Run> leased = of(result, "leased");
        List<LeaseScenario.Run> unleased = of(result, "unleased");
        double calls = Stats.median(leased.stream().map(LeaseScenario.Run::callsPerDecision).toList());
        List<Double> ratios = new java.util.ArrayList<>();
        for (int i = 0; i < leased.size(); i++) {
            ratios.add(leased.get(i).both().perSecond() / unleased.get(i).both().perSecond());
        }
        double speedUp = Stats.median(ratios);
        List<LeaseScenario.Run> checked = new java.util.ArrayList<>(result.hot());
        checked.add(result.above());
        checked.add(result.below());
        double oneThread = Stats.median(result.oneThreadRatios());
        LeaseLoad.Result above = result.above().both();
        double x1 = result.above().here().allowed();
        double x2 = result.above().there().allowed();
        double jain = (x1 + x2) * (x1 + x2) / (2 * (x1 * x1 + x2 * x2));
        double ideal = Math.min(above.decisions(), LeasedService.NEAR_RATE * above.elapsedNanos() / 1e9);
        double under = 1 - above.allowed() / ideal;
        LeaseLoad.Result below = result.below().both();
        long refusedBelow = below.decisions() - below.allowed();
        double killWindow = (result.killRunNanos() - result.killedAfterNanos()) / 1e9 - 1
                - LeasedService.LEASE_MILLIS / 1e3;
        double survivorShare = killWindow > 0 ? result.survivorAfterKill() / (LeasedService.NEAR_RATE * killWindow) : 0;
        double leasedCpu = Stats.median(leased.stream().map(LeaseScenario.Run::redisCpu).toList());
        double leasedCallsPerSecond = Stats.median(leased.stream().map(LeaseScenario.Run::callsPerSecond).toList());

        md.append("\n### Targets\n\n| target | measured | met? |\n| --- | --- | --- |\n");
        target(md, "script calls per decision of the leased hot limit, 2 JVMs x 32 threads, ≤ 0.02",
                String.format(Locale.ROOT, "%.4f (median of the rounds)", calls), calls <= 0.02);
        target(md, "decisions/s of the leased hot limit ≥ 10x its unleased twin's", String.format(Locale.ROOT,
                "%.1fx (median of the rounds' ratios)", speedUp), speedUp >= 10);
        law(md, "the law at spend time: 0 violations (hot runs of all three, above, below)", checked);
        target(md, "1 thread: (b) leased decision / (a) raw `tryAcquire` (of the main table: 256 users' limiters) "
                + "≥ 1.5", String.format(Locale.ROOT,
                "%.1f (median of %d rounds' ratios)", oneThread, result.oneThreadRatios().size()), oneThread >= 1.5);
        target(md, "2 JVMs of equal demand (1.1x the limit of " + String.format(Locale.ROOT, "%,d",
                LeasedService.NEAR_RATE) + "/s): Jain's index ≥ 0.95", String.format(Locale.ROOT, "%.4f (%,.0f and %,.0f "
                        + "admitted)", jain, x1, x2), jain >= 0.95);
        target(md, "under-admission against the ideal (the rate over the run) at saturation ≤ 5 %",
                String.format(Locale.ROOT, "%.2f %% (%,d admitted of %,.0f)", 100 * under, above.allowed(), ideal),
                under <= 0.05);
        target(md, "under-admission with demand below the limit (0.9x): 0", String.format(Locale.ROOT,
                "%,d refused of %,d", refusedBelow, below.decisions()), refusedBelow == 0);
        law(md, "kill -9 of one JVM mid-run: no violation", List.of(result.killed()));
        target(md, "kill -9: no permit stays held for the dead JVM after its last lease ends (within one lease "
                + "period of the kill): that grant counts in Redis's window exactly as if all of it had been spent at "
                + "the lease's end, which the law requires since Redis cannot know what was spent, and leaves the "
                + "window one interval later; from then on the survivor (demand 1.1x the limit) gets the rate "
                + "(≥ 95 %)", killWindow > 0 ? String.format(Locale.ROOT, "the survivor got %.1f %% of the rate "
                        + "from one lease period and one interval after the kill to the run's end (%.2f s)",
                        100 * survivorShare, killWindow) : "not measured", survivorShare >= 0.95);
        http(md, result.http());
        target(md, "one slot no longer caps a leased limit (Redis CPU at the top rate well below one core)",
                String.format(Locale.ROOT, "%,.0f script calls/s, Redis CPU %.0f %% (median of the rounds)",
                        leasedCallsPerSecond, 100 * leasedCpu), leasedCpu < 0.5);
        md.append("\nOne slot: with leases, each instance sends at most two script calls per lease period, whatever "
                + "the rate, so the Redis time of a leased limit grows with the instances that share it, not with "
                + "its rate; one Redis core, which serves about 40,000 script calls per second (the saturation ramp "
                + "of the full run), serves the leases of about 200 instances at 10 ms, ten times as many at 100 ms. "
                + "Sharding one limit across slots is not needed for its rate.\n");
        md.append("\nThe HTTP endpoint's lease is " + HttpApplication.LEASE + " (the sample app's): a lease is worth "
                + "its call to Redis only when it lasts several round trips, which under this machine's load take 5 to "
                + "20 ms; a lease of 10 ms arrives nearly spent there, and its callers wait for the next. The HTTP rows "
                + "alone, on a redis-server of their own, with each endpoint's medians: `" + HttpScenario.COMMAND
                + "`.\n");
    }

    /**
     * The targets' rows of the HTTP endpoints with a lease: requests per second as the median of the rounds' ratios
     * to the unlimited twin's run next to it, with their interquartile range and their extremes.
     */
    static void http(StringBuilder md, List<HttpScenario.Result> http) {
        for (HttpScenario.Result row : http) {
            double unlimited = row.unlimited().medianMicros(0.5);
            double added = row.leased().medianMicros(0.5) - unlimited;
            double get = row.oneRedisCall().medianMicros(0.5) - unlimited;
            List<Double> ratios = row.ratiosToUnlimited(row.leased());
            double share = Stats.median(ratios);
            double plain = row.limited().medianMicros(0.5) - unlimited;
            String measured = String.format(Locale.ROOT, "added p50 %.0f µs (one `GET` %.0f, unleased %.0f); "
                    + "%,.0f req/s, %.2fx the unlimited twin's (median of %d rounds' ratios to the twin's run next to "
                    + "it; interquartile %.2f-%.2f, all %.2f-%.2f; unleased %.2fx)", added, get, plain,
                    row.leased().medianPerSecond(), share, ratios.size(), Stats.percentile(ratios, 0.25),
                    Stats.percentile(ratios, 0.75), Stats.percentile(ratios, 0), Stats.percentile(ratios, 1),
                    Stats.median(row.ratiosToUnlimited(row.limited())));
            if (row.connections() == 1) {
                target(md, "HTTP, 1 connection: added p50 with a lease below one `GET`'s", measured, added < get);
            }
            else {
                target(md, "HTTP, " + row.connections() + " connections: req/s with a lease ≥ 0.9x the unlimited "
                        + "twin's", measured, share >= 0.9);
            }
        }
    }

    /**
     * Met when no window is over the rate by the bound; missed when one surely is; else not decided at the check's
     * resolution (the calls that straddle a window's edges), with the most any window is over by the bound.
     */
    private static void law(StringBuilder md, String target, List<LeaseScenario.Run> runs) {
        long over = runs.stream().mapToLong(run -> run.law().windowsOver()).sum();
        long surely = runs.stream().mapToLong(run -> run.law().windowsSurelyOver()).sum();
        long excess = runs.stream().mapToLong(run -> run.law().mostInAWindow() - run.law().rate()).max().orElse(0);
        String measured = String.format(Locale.ROOT, "windows of 1 s (one per µs) surely over the rate: %,d; over it "
                + "by the bound: %,d%s", surely, over, over > 0 ? String.format(Locale.ROOT, " (at most %,d permits "
                        + "over)", excess) : "");
        target(md, target, measured, surely > 0 ? "✘" : over > 0 ? "not decided: over only by calls in flight at a window's edges" : "✔");
    }

    private static void target(StringBuilder md, String target, String measured, boolean met) {
        target(md, target, measured, met ? "✔" : "✘");
    }

    private static void target(StringBuilder md, String target, String measured, String met) {
        md.append("| ").append(target).append(" | ").append(measured).append(" | ").append(met).append(" |\n");
    }

    private static List<LeaseScenario.Run> of(LeaseScenario.Result result, String decision) {
        return result.hot().stream().filter(run -> run.decision().equals(decision)).toList();
    }
}
