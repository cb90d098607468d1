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
                + "%d rounds of %s, the three in turn. Every allowed decision's call is logged by `System.nanoTime()` "
                + "(one clock for both JVMs) and checked against the law by Redis's clock (see below). "
                + "Reproduce with:\n\n```bash\n%s\n```\n\n",
                settings.quick() ? " (quick mode: figures are not meaningful)" : "", LeasedService.LEASE,
                LeaseScenario.THREADS, result.hot().size() / LeaseScenario.HOT.size(),
                settings.quick() ? "300 ms" : "2 s", LeaseScenario.COMMAND));
        md.append("| round | decision | decisions/s, both JVMs | of them this JVM | allowed | script calls per decision "
                + "| script calls/s | Redis CPU | most spent in 1 s (bound) | windows over the rate |\n"
                + "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (int i = 0; i < result.hot().size(); i++) {
            row(md, String.valueOf(i / LeaseScenario.HOT.size() + 1), result.hot().get(i));
        }
        md.append("\n| run | decision | decisions/s, both JVMs | of them this JVM | allowed | script calls per decision "
                + "| script calls/s | Redis CPU | most spent in 1 s (bound) | windows over the rate |\n"
                + "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        row(md, "above", result.above());
        row(md, "below", result.below());
        row(md, "kill -9", result.killed());
        targets(md, result);
        return md.toString();
    }

    private static void row(StringBuilder md, String label, LeaseScenario.Run run) {
        LeaseLoad.Result both = run.both();
        md.append(String.format(Locale.ROOT, "| %s | %s | %,.0f | %,.0f | %,d of %,d | %.4f | %,.0f | %s | %,d of %,d "
                + "| %d |\n", label, run.decision(), both.perSecond(), run.here().perSecond(), both.allowed(),
                both.decisions(), run.callsPerDecision(), run.callsPerSecond(),
                run.redisCpu() < 0 ? "–" : String.format(Locale.ROOT, "%.0f %%", 100 * run.redisCpu()),
                run.law().mostInAWindow(), run.law().rate(), run.law().windowsOver()));
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
        long over = result.hot().stream().mapToLong(run -> run.law().windowsOver()).sum()
                + result.above().law().windowsOver() + result.below().law().windowsOver();
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
        target(md, "the law at spend time: 0 windows of 1 s over the rate (hot runs of all three, above, below)",
                String.valueOf(over), over == 0);
        target(md, "1 thread: (b) leased decision / (a) raw `tryAcquire` ≥ 1.5", String.format(Locale.ROOT,
                "%.1f (median of %d rounds' ratios)", oneThread, result.oneThreadRatios().size()), oneThread >= 1.5);
        target(md, "2 JVMs of equal demand (1.1x the limit of " + String.format(Locale.ROOT, "%,d",
                LeasedService.NEAR_RATE) + "/s): Jain's index ≥ 0.95", String.format(Locale.ROOT, "%.4f (%,.0f and %,.0f "
                        + "admitted)", jain, x1, x2), jain >= 0.95);
        target(md, "under-admission against the ideal (the rate over the run) at saturation ≤ 5 %",
                String.format(Locale.ROOT, "%.2f %% (%,d admitted of %,.0f)", 100 * under, above.allowed(), ideal),
                under <= 0.05);
        target(md, "under-admission with demand below the limit (0.9x): 0", String.format(Locale.ROOT,
                "%,d refused of %,d", refusedBelow, below.decisions()), refusedBelow == 0);
        target(md, "kill -9 of one JVM mid-run: no violation", String.valueOf(result.killed().law().windowsOver()),
                result.killed().law().windowsOver() == 0);
        target(md, "kill -9: the survivor (demand 1.1x the limit) gets the whole rate back once the dead JVM's last "
                + "lease has left the window (its end + 1 s)", killWindow > 0 ? String.format(Locale.ROOT,
                        "%.1f %% of the rate over the last %.2f s", 100 * survivorShare, killWindow) : "not measured",
                survivorShare >= 0.95);
        http(md, result.http());
        target(md, "one slot still caps a leased limit?", String.format(Locale.ROOT, "%,.0f script calls/s, Redis CPU "
                + "%.0f %% at the top rate", leasedCallsPerSecond, 100 * leasedCpu), leasedCpu < 0.5);
        md.append(String.format(Locale.ROOT, "\nThe law's bound: %s.\n", slack(result)));
    }

    private static String slack(LeaseScenario.Result result) {
        return String.format(Locale.ROOT, "each window is charged with every permit whose call overlaps it "
                + "(±%.0f µs of clock uncertainty and log buckets)", result.hot().get(0).law().slackMicros());
    }

    private static void http(StringBuilder md, List<HttpScenario.Result> http) {
        for (HttpScenario.Result row : http) {
            double unlimited = row.unlimited().medianMicros(0.5);
            double added = row.leased().medianMicros(0.5) - unlimited;
            double get = row.oneRedisCall().medianMicros(0.5) - unlimited;
            double share = row.leased().medianPerSecond() / row.unlimited().medianPerSecond();
            double plain = row.limited().medianMicros(0.5) - unlimited;
            String measured = String.format(Locale.ROOT, "added p50 %.0f µs (one `GET` %.0f, unleased %.0f); "
                    + "%,.0f req/s = %.2fx the unlimited twin's (unleased %.2fx)", added, get, plain,
                    row.leased().medianPerSecond(), share,
                    row.limited().medianPerSecond() / row.unlimited().medianPerSecond());
            if (row.connections() == 1) {
                target(md, "HTTP, 1 connection: added p50 with a lease below one `GET`'s", measured, added < get);
            }
            else {
                target(md, "HTTP, " + row.connections() + " connections: req/s with a lease ≥ 0.9x the unlimited "
                        + "twin's", measured, share >= 0.9);
            }
        }
    }

    private static void target(StringBuilder md, String target, String measured, boolean met) {
        md.append("| ").append(target).append(" | ").append(measured).append(" | ").append(met ? "✔" : "✘")
                .append(" |\n");
    }

    private static List<LeaseScenario.Run> of(LeaseScenario.Result result, String decision) {
        return result.hot().stream().filter(run -> run.decision().equals(decision)).toList();
    }
}
