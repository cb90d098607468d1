package io.github.redissonratelimit.contract;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.github.redissonratelimit.contract.Ledger.Grant;
import io.github.redissonratelimit.contract.Ledger.Loss;

/**
 * Checks a limiter's kept grants against its law, counting only what is certain: for every span from the start of
 * one grant's range to the end of another's, the grants whose whole range lies within it, against the law's bound
 * over the whole span (a bound that grows with the span, so the grants' true times, somewhere in their ranges, lie in
 * a span no longer). Grants of several configs (a change under way) are bound by the most generous of them; a span
 * that may hold a loss of state is allowed that config's capacity once more per loss (a reset lets a full window or
 * bucket through again, never more; a grant made before a loss and given back after it gives nothing back), and a
 * span that may hold part of an allowance (a documented limit of a guarantee) its permits once more. Every failure found is a real excess;
 * a grant's range only hides one when it is too long to place the grant.
 */
final class LawCheck {

    private LawCheck() {
    }

    /** The span where the grants came nearest to the bound (or went furthest over it). */
    record Worst(long permits, double bound, long fromMicros, long toMicros, List<Grant> grants, Set<String> laws) {

        boolean exceeded() {
            return permits > bound + 1e-6;
        }

        /** For failure messages: the span and each grant's range, in ms from {@code originMicros}. */
        String describe(long originMicros) {
            StringBuilder text = new StringBuilder(String.format(
                    "%d permits within %.3f ms from %.3f ms (bound %.3f, %s):", permits, (toMicros - fromMicros) / 1e3,
                    (fromMicros - originMicros) / 1e3, bound, laws));
            for (Grant grant : grants) {
                text.append(String.format(" %d@[%.3f,%.3f]%s", grant.permits(),
                        (grant.fromMicros() - originMicros) / 1e3, (grant.toMicros() - originMicros) / 1e3, grant.how()));
            }
            return text.toString();
        }
    }

    static Worst worst(List<Grant> grants, List<Loss> losses) {
        return worst(grants, losses, List.of());
    }

    /** Like {@link #worst(List, List)}, each of {@code allowances} allowed in the spans that may hold part of it. */
    static Worst worst(List<Grant> grants, List<Loss> losses, List<Ledger.Allowance> allowances) {
        List<Grant> byEnd = new ArrayList<>(grants);
        byEnd.sort(Comparator.comparingLong(Grant::toMicros));
        double worstMargin = Double.NEGATIVE_INFINITY;
        long worstPermits = 0;
        double worstBound = 0;
        long worstFrom = 0;
        long worstTo = 0;
        for (Grant first : grants) {
            long from = first.fromMicros();
            long permits = 0;
            double capacity = 0;
            List<Law> laws = new ArrayList<>(2);
            for (Grant grant : byEnd) {
                if (grant.fromMicros() < from) {
                    continue;
                }
                permits += grant.permits();
                if (!laws.contains(grant.limit().law())) {
                    laws.add(grant.limit().law());
                    capacity = Math.max(capacity, grant.limit().law().capacity());
                }
                long to = grant.toMicros();
                double bound = 0;
                for (Law law : laws) {
                    bound = Math.max(bound, law.bound(from, to));
                }
                bound += capacity * lossesWithin(losses, from, to) + allowedWithin(allowances, from, to);
                if (permits - bound > worstMargin) {
                    worstMargin = permits - bound;
                    worstPermits = permits;
                    worstBound = bound;
                    worstFrom = from;
                    worstTo = to;
                }
            }
        }
        long spanFrom = worstFrom;
        long spanTo = worstTo;
        List<Grant> within = grants.stream()
                .filter(grant -> grant.fromMicros() >= spanFrom && grant.toMicros() <= spanTo).toList();
        Set<String> laws = new LinkedHashSet<>();
        within.forEach(grant -> laws.add(grant.limit().law().toString()));
        return new Worst(worstPermits, worstBound, worstFrom, worstTo, within, laws);
    }

    /** The permits of the allowances that may lie partly within {@code [from, to]}. */
    private static long allowedWithin(List<Ledger.Allowance> allowances, long from, long to) {
        return allowances.stream().filter(allowance -> allowance.fromMicros() <= to && allowance.toMicros() >= from)
                .mapToLong(Ledger.Allowance::permits).sum();
    }

    /** The losses that may have happened within {@code [from, to]}. */
    private static long lossesWithin(List<Loss> losses, long from, long to) {
        return losses.stream().filter(loss -> loss.fromMicros() <= to && loss.toMicros() >= from).count();
    }
}
