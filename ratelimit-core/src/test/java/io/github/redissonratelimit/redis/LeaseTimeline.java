package io.github.redissonratelimit.redis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.ScriptCallLog.ScriptCall;
import io.github.redissonratelimit.redis.ScriptCallLog.ScriptCommand;

/**
 * The leases of one in-flight limiter, read off the script calls Redis ran ({@link ScriptCallLog}), all in µs of
 * Redis's clock. A lease starts at its id (the µs of its grant, from the {@code ZADD} of its member
 * {@code <id>:<permits>}) and is held until the give-back its call sent (the refund call naming {@code r<id>}, at
 * {@code MONITOR}'s stamp of it, whatever that call removed) or, for a lease never given back, its end unless
 * renewed (the score, ms, of the last {@code ZADD} of its member: its grant's or last renewal's time plus the lease
 * period, read by the script from Redis's clock; the scripts drop a lease once their clock reaches it). A call's
 * give-back ends its lease even when the lease ended unrenewed before it: that lease was lost while its call held
 * it ({@link #endedWhileHeld()}), which renewals prevent. A loss of Redis's data (a restart, {@code FLUSHALL}) ends
 * every lease held then, in Redis; the calls that held them run on.
 */
final class LeaseTimeline {

    private static final Pattern MEMBER = Pattern.compile("(\\d+):(\\d+):.+");

    /**
     * One lease.
     *
     * @param givenBackMicros when its call gave it back, or {@link Long#MAX_VALUE} when it never did
     * @param unrenewedEndMicros when it ended unless renewed: the score of its last {@code ZADD} before the give-back
     * @param renewals the renewals that found it held (the {@code ZADD}s after its grant's)
     * @param renewedMicros when Redis started the call that wrote {@code unrenewedEndMicros} (its grant or last
     *        renewal)
     */
    record Lease(long id, long permits, long givenBackMicros, long unrenewedEndMicros, int renewals,
            long renewedMicros) {

        /** When it ended, losses aside: given back, or else unrenewed. */
        long endMicros() {
            return givenBack() ? givenBackMicros : unrenewedEndMicros;
        }

        boolean givenBack() {
            return givenBackMicros != Long.MAX_VALUE;
        }
    }

    /** The most permits held at once, from when, and by which leases. */
    record Peak(long permits, long atMicros, List<Lease> holders) {
    }

    /** A decision: when Redis ran it, and the lease it granted ({@code -1} when it refused). */
    record Attempt(long stampMicros, long leaseId) {

        boolean granted() {
            return leaseId >= 0;
        }
    }

    private final List<Lease> leases;
    private final List<Attempt> attempts;
    private final List<Long> lossMicros;

    private LeaseTimeline(List<Lease> leases, List<Attempt> attempts, List<Long> lossMicros) {
        this.leases = leases;
        this.attempts = attempts;
        this.lossMicros = lossMicros;
    }

    /**
     * @param calls the script calls recorded, in the order Redis ran them
     * @param lossMicros when Redis lost its data (µs, Redis's clock; no script ran between the leases it ended and
     *        this time)
     */
    static LeaseTimeline of(String limiterName, List<ScriptCall> calls, List<Long> lossMicros) {
        String leasesKey = LimiterNaming.permitsKey(limiterName);
        // id -> permits, given back, last score (ms), ZADDs, stamp of the last ZADD's call
        Map<Long, long[]> byId = new LinkedHashMap<>();
        List<Attempt> attempts = new ArrayList<>();
        for (ScriptCall call : calls) {
            if (!call.limiterName().equals(limiterName)) {
                continue;
            }
            long receipt = call.receipt();
            if (receipt >= 0 && !call.renewal() && byId.containsKey(receipt)) {
                long[] lease = byId.get(receipt);
                lease[1] = Math.min(lease[1], call.stampMicros());
            }
            long granted = -1;
            for (ScriptCommand command : call.commands()) {
                List<String> tokens = command.tokens();
                if (tokens.size() != 4 || !tokens.get(0).equalsIgnoreCase("zadd")
                        || !tokens.get(1).equals(leasesKey)) {
                    continue;
                }
                Matcher member = MEMBER.matcher(tokens.get(3));
                if (!member.matches()) {
                    throw new IllegalStateException("Not an in-flight lease: " + tokens);
                }
                long id = Long.parseLong(member.group(1));
                long score = Long.parseLong(tokens.get(2));
                long[] lease = byId.get(id);
                if (lease == null) {
                    byId.put(id, new long[] {Long.parseLong(member.group(2)), Long.MAX_VALUE, score, 1,
                        call.stampMicros()});
                    granted = id;
                }
                else if (lease[1] == Long.MAX_VALUE) { // a renewal after the give-back does not count
                    lease[2] = score;
                    lease[3]++;
                    lease[4] = call.stampMicros();
                }
            }
            if (call.acquire()) {
                attempts.add(new Attempt(call.stampMicros(), granted));
            }
        }
        List<Lease> leases = new ArrayList<>();
        byId.forEach((id, lease) -> leases.add(new Lease(id, lease[0], lease[1], lease[2] * 1000, (int) lease[3] - 1,
                lease[4])));
        return new LeaseTimeline(leases, attempts, List.copyOf(lossMicros));
    }

    List<Lease> leases() {
        return leases;
    }

    List<Attempt> attempts() {
        return attempts;
    }

    /** When Redis ended the lease: its end, or the first loss of data while it was held. */
    long endInRedis(Lease lease) {
        long end = lease.endMicros();
        for (long loss : lossMicros) {
            if (loss > lease.id() && loss < end) {
                end = loss;
            }
        }
        return end;
    }

    /** The leases granted before a loss of data and held until it. */
    List<Lease> lostToALoss() {
        return leases.stream().filter(lease -> endInRedis(lease) < lease.endMicros()).toList();
    }

    /**
     * The leases whose calls gave them back after their end unless renewed, with no loss of data between: Redis
     * let them go while their calls held them (a renewal came late, or a give-back took another call's lease).
     */
    List<Lease> endedWhileHeld() {
        return leases.stream()
                .filter(lease -> lease.givenBack() && lease.givenBackMicros() > lease.unrenewedEndMicros()
                        && endInRedis(lease) == lease.endMicros())
                .toList();
    }

    /** The leases their calls held longer than {@code micros} and gave back, with no loss of data between. */
    List<Lease> heldLongerThan(long micros) {
        return leases.stream()
                .filter(lease -> lease.givenBack() && lease.givenBackMicros() - lease.id() > micros
                        && endInRedis(lease) == lease.endMicros())
                .toList();
    }

    /**
     * The most permits held at any moment, overlap counted exactly in µs (a lease holds from its id until, not
     * at, its end): with {@code inRedis}, leases end at a loss of data too; without, they are held until their
     * calls gave them back or they ended unrenewed (what the calls in flight held).
     */
    Peak mostHeld(boolean inRedis) {
        record Edge(long micros, long permits, Lease lease) {
        }
        List<Edge> edges = new ArrayList<>();
        for (Lease lease : leases) {
            long end = inRedis ? endInRedis(lease) : lease.endMicros();
            if (end > lease.id()) {
                edges.add(new Edge(lease.id(), lease.permits(), lease));
                edges.add(new Edge(end, -lease.permits(), lease));
            }
        }
        // at one µs, ends first: a lease ended at t and one granted at t never held permits together
        edges.sort(Comparator.comparingLong(Edge::micros).thenComparingLong(Edge::permits));
        long held = 0;
        Peak peak = new Peak(0, 0, List.of());
        for (Edge edge : edges) {
            held += edge.permits();
            if (held > peak.permits()) {
                long at = edge.micros();
                List<Lease> holders = leases.stream()
                        .filter(lease -> lease.id() <= at && at < (inRedis ? endInRedis(lease) : lease.endMicros()))
                        .toList();
                peak = new Peak(held, at, holders);
            }
        }
        return peak;
    }
}
