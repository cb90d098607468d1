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
                + "%d rounds of %s, the three in turn. Every permit spent is logged by the grant it came from, and every "
                + "allowed call by the wall clock, which Redis's `TIME` reads, and checked against the law by Redis's "
                + "clock (see below). "
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
                + "| script calls/s | Redis CPU | most spent in 1 s, by grant in Redis's ms / by the calls' µs: bound / surely "
                + "| windows over the rate, by grant / by the calls' µs: bound / surely |\n"
                + "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (int i = 0; i < result.hot().size(); i++) {
            row(md, String.valueOf(i / LeaseScenario.HOT.size() + 1), result.hot().get(i));
        }
        md.append("\n| run | decision | decisions/s, both JVMs | of them this JVM | allowed | script calls per decision "
                + "| script calls/s | Redis CPU | most spent in 1 s, by grant in Redis's ms / by the calls' µs: bound / surely "
                + "| windows over the rate, by grant / by the calls' µs: bound / surely |\n"
                + "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
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
        md.append("\n**The law, checked at spend time by Redis's clock.** The sliding window counts by Redis's clock in "
                + "milliseconds (its `TIME`, truncated), so the law it keeps is over the windows (n, n + 1 s] of those "
                + "ms. *By grant:* a decorator around the lease layer in each JVM writes every permit its callers get "
                + "under the receipt of the grant it came from, to a file mapped in memory (a JVM killed with -9 leaves "
                + "it). A lease's receipt is its end e, the ms Redis counts it by; it was granted at e - lease, so its "
                + "permits were spent from e - lease to e (an instance stops spending a lease once the lease period has "
                + "passed since it sent the call, before Redis read the grant's time). A plain grant's receipt is "
                + "Redis's µs when it granted. Each window is charged with every permit of each lease that could have "
                + "been spent in it and of each plain grant inside it: never below the true count, and no timestamp "
                + "taken around a call, so no window over the rate is a sound 0 violations. Redis counts all those "
                + "grants at the window's last ms, where free + held = rate, so a window can be over only if a lease was "
                + "spent outside its span or Redis counted it for less. The calls' timestamps check the span's end: a "
                + "permit served from a lease during a call that started after the lease's end ms is a violation; one "
                + "whose call was still open then is not decided by them. *By the calls' µs* (a cross-check, and the "
                + "only check of the unleased and raw rows, whose permits have no lease): each JVM reads the wall clock, "
                + "which Redis's `TIME` reads (each of 200 `TIME` readings before and after each run must lie between "
                + "the wall clock's readings around it, or the run fails), at both ends of every allowed call, and for "
                + "every window (a, a + 1 s], one per µs of a, counts the spends whose span touches it (the bound: "
                + "never below the true count) and those whose span lies inside it (surely). At exact saturation the "
                + "bound is over by calls in flight at a window's edges (a call preempted on the loaded machine or "
                + "stopped by a GC pause stays open for milliseconds), and a window of µs can hold the grants of two "
                + "ms one second apart by Redis's clock.\n");
        targets(md, result);
        return md.toString();
    }

    private static void row(StringBuilder md, String label, LeaseScenario.Run run) {
        LeaseLoad.Result both = run.both();
        SpendLaw.Result law = run.law();
        ReceiptLaw.Result byGrant = run.byGrant();
        boolean leased = byGrant.spent() > 0;
        md.append(String.format(Locale.ROOT, "| %s | %s | %,.0f | %,.0f | %,d of %,d | %.4f | %,.0f | %s | %s / %,d / %,d "
                + "of %,d | %s / %,d / %,d |\n", label, run.decision(), both.perSecond(), run.here().perSecond(),
                both.allowed(), both.decisions(), run.callsPerDecision(), run.callsPerSecond(),
                run.redisCpu() < 0 ? "–" : String.format(Locale.ROOT, "%.0f %%", 100 * run.redisCpu()),
                leased ? String.format(Locale.ROOT, "%,d", byGrant.mostInAWindow()) : "–", law.mostInAWindow(),
                law.mostSurely(), law.rate(), leased ? String.format(Locale.ROOT, "%,d", byGrant.windowsOver()) : "–",
                law.windowsOver(), law.windowsSurelyOver()));
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
        law(md, "the law at spend time: 0 violations (hot runs of all three, above, below)", checked, false);
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
        law(md, "kill -9 of one JVM mid-run: no violation", List.of(result.killed()), true);
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
     * The law over {@code runs}: the leased ones by grant in Redis's ms ({@link ReceiptLaw}: met when no window is
     * over the rate, every allowed permit is placed by its grant, and none was surely spent after its lease's end), the
     * others by the calls' µs ({@link SpendLaw}: met when no window is over the rate by the bound, missed when one
     * surely is). {@code killed}: one JVM's allowed permits are not known, only its grants.
     */
    private static void law(StringBuilder md, String target, List<LeaseScenario.Run> runs, boolean killed) {
        long overByGrant = 0;
        long most = Long.MIN_VALUE;
        long placed = 0;
        long allowed = 0;
        long unplaced = 0;
        long served = 0;
        long open = 0;
        long after = 0;
        long overBySpan = 0;
        long surelyBySpan = 0;
        for (LeaseScenario.Run run : runs) {
            ReceiptLaw.Result byGrant = run.byGrant();
            surelyBySpan += run.law().windowsSurelyOver();
            if (byGrant.spent() == 0) {
                overBySpan += run.law().windowsOver();
                continue;
            }
            overByGrant += byGrant.windowsOver();
            most = Math.max(most, byGrant.mostInAWindow() - byGrant.rate());
            placed += byGrant.spent();
            allowed += run.both().allowed();
            unplaced += byGrant.unplaced();
            served += byGrant.servedInCall();
            open += byGrant.openAtLeaseEnd();
            after += byGrant.afterLeaseEnd();
        }
        boolean allPlaced = unplaced == 0 && (killed ? placed >= allowed : placed == allowed);
        String measured = String.format(Locale.ROOT, "leased, by grant in Redis's ms: windows of 1 s over the rate "
                + "%,d (the fullest %s the rate); permits placed by their grant %,d of %,d allowed%s; of %,d served "
                + "from a lease during their call, %,d surely after their lease's end, %,d with the call still open "
                + "then. Windows of 1 s (one per µs) surely over the rate by the calls' µs: %,d%s", overByGrant,
                most == Long.MIN_VALUE ? "no leased run:" : most == 0 ? "at" : most < 0 ? String.format(Locale.ROOT, "%,d under", -most)
                        : String.format(Locale.ROOT, "%,d over", most),
                placed, allowed, killed ? " by the survivor (the killed JVM's are not counted)" : "", served, after,
                open, surelyBySpan, overBySpan > 0 ? String.format(Locale.ROOT, "; unleased runs over by the bound: "
                        + "%,d", overBySpan) : "");
        String met = overByGrant > 0 || after > 0 || surelyBySpan > 0 ? "✘"
                : !allPlaced || overBySpan > 0 ? "not decided" : "✔";
        target(md, target, measured, met);
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
