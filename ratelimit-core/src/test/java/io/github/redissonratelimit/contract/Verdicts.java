package io.github.redissonratelimit.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a run found, per algorithm: for each limiter key checked, the span nearest its law (or furthest over it),
 * and the permits its callers kept against the least a working limiter must have let through (so that a run that
 * granted next to nothing cannot pass). Each message names the seed the run was made from.
 */
final class Verdicts {

    /** One limiter's verdict on one aspect of the contract; {@code context}: refunds and losses about its worst span. */
    record Verdict(String aspect, String key, LawCheck.Worst worst, long kept, long least, String context) {
    }

    private final String run;
    private final long seed;
    private final long originMicros;
    private final Map<Algorithm, List<Verdict>> verdicts = new LinkedHashMap<>();
    private final List<String> notes = new ArrayList<>();

    Verdicts(String run, long seed, long originMicros) {
        this.run = run;
        this.seed = seed;
        this.originMicros = originMicros;
    }

    /** Checks {@code key}'s grants, for {@code aspect} of {@code algorithm}'s contract. */
    void add(String aspect, Algorithm algorithm, Ledger ledger, String key, long least) {
        add(aspect, algorithm, ledger, key, least, List.of());
    }

    /** Like {@link #add(String, Algorithm, Ledger, String, long)}, with {@code allowances} on top of the law. */
    void add(String aspect, Algorithm algorithm, Ledger ledger, String key, long least,
            List<Ledger.Allowance> allowances) {
        LawCheck.Worst worst = ledger.check(key, allowances);
        verdicts.computeIfAbsent(algorithm, a -> new ArrayList<>()).add(new Verdict(aspect, key, worst,
                ledger.permits(key), least, context(ledger, key, worst, allowances)));
    }

    /**
     * The grants given back and the losses within a second of the span, and the allowances, in ms from the run's
     * start.
     */
    private String context(Ledger ledger, String key, LawCheck.Worst worst, List<Ledger.Allowance> allowances) {
        long from = worst.fromMicros() - 1_000_000;
        StringBuilder text = new StringBuilder("; given back:");
        ledger.refunds(key).stream()
                .filter(refund -> refund.toMicros() >= from && refund.fromMicros() <= worst.toMicros())
                .forEach(refund -> text.append(String.format(" %d granted from %.3f, back within [%.3f,%.3f]",
                        refund.permits(), (refund.grantFromMicros() - originMicros) / 1e3,
                        (refund.fromMicros() - originMicros) / 1e3, (refund.toMicros() - originMicros) / 1e3)));
        text.append("; lost:");
        ledger.losses(key).forEach(loss -> text.append(String.format(" %s within [%.3f,%.3f]", loss.what(),
                (loss.fromMicros() - originMicros) / 1e3, (loss.toMicros() - originMicros) / 1e3)));
        allowances.forEach(allowance -> text.append(String.format("; allowed on top: %d (%s) within [%.3f,%.3f]",
                allowance.permits(), allowance.what(), (allowance.fromMicros() - originMicros) / 1e3,
                (allowance.toMicros() - originMicros) / 1e3)));
        return text.toString();
    }

    void note(String note) {
        notes.add(note);
    }

    String seedText() {
        return "seed " + seed + " (again with -Dcontract.seed=" + seed + ")";
    }

    /**
     * Fails when a limiter checked for {@code aspect} of {@code algorithm} let more through than its law, or far
     * less than it allows.
     */
    void assertHeld(String aspect, Algorithm algorithm) {
        List<Verdict> found = verdicts.getOrDefault(algorithm, List.of()).stream()
                .filter(verdict -> verdict.aspect().equals(aspect)).toList();
        assertThat(found).as("%s: limiters checked for %s of %s", run, aspect, algorithm).isNotEmpty();
        for (Verdict verdict : found) {
            assertThat(verdict.worst().exceeded()).as("%s, %s, %s: over its law: %s%s", run, seedText(), verdict.key(),
                    verdict.worst().describe(originMicros), verdict.context()).isFalse();
        }
        long kept = found.stream().mapToLong(Verdict::kept).sum();
        long least = found.stream().mapToLong(Verdict::least).sum();
        assertThat(kept).as("%s, %s, %s of %s: permits kept (the limiter must grant, or the law proves nothing)",
                run, seedText(), aspect, algorithm).isGreaterThanOrEqualTo(least);
    }

    /** One line per algorithm and aspect: permits kept, the span nearest the law and its bound, and the notes. */
    String report() {
        StringBuilder text = new StringBuilder("[contract " + run + "] " + seedText() + '\n');
        verdicts.forEach((algorithm, found) -> found.stream().map(Verdict::aspect).distinct().forEach(aspect -> {
            List<Verdict> ofAspect = found.stream().filter(verdict -> verdict.aspect().equals(aspect)).toList();
            LawCheck.Worst nearest = ofAspect.stream().map(Verdict::worst)
                    .max(java.util.Comparator.comparingDouble(worst -> worst.permits() - worst.bound())).orElseThrow();
            text.append(String.format("[contract %s]   %s, %s: %d limiter(s), %d permits kept (least %d); nearest the "
                    + "law: %d permits in %.1f ms (bound %.2f)%s%n", run, algorithm, aspect, ofAspect.size(),
                    ofAspect.stream().mapToLong(Verdict::kept).sum(), ofAspect.stream().mapToLong(Verdict::least).sum(),
                    nearest.permits(), (nearest.toMicros() - nearest.fromMicros()) / 1e3, nearest.bound(),
                    nearest.exceeded() ? " OVER: " + nearest.describe(originMicros) : ""));
        }));
        notes.forEach(note -> text.append("[contract ").append(run).append("]   ").append(note).append('\n'));
        return text.toString();
    }
}
