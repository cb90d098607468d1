package io.github.redissonratelimit.contract;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.github.redissonratelimit.contract.Algorithm.Limit;

/**
 * What the callers of a run were granted and kept, limiter by limiter, each grant with the range of Redis's clock it
 * was made in (from before its call was sent to after its answer came); and when limiters lost their state. A grant
 * given back (a refund, a cancelled wait, a call refused by its other limit) is not kept: what a law bounds is the
 * permits calls held on to.
 */
final class Ledger {

    /** A grant kept by its caller, of a limit as the call declared it. */
    record Grant(String key, Limit limit, long permits, long fromMicros, long toMicros, String how) {
    }

    /** A loss of state (keys deleted, Redis emptied or restarted) within {@code [fromMicros, toMicros]}. */
    record Loss(String what, long fromMicros, long toMicros) {
    }

    /** A grant of {@code permits} (made from {@code grantFromMicros} on) given back within {@code [from, to]}. */
    record Refund(String key, long permits, long grantFromMicros, long fromMicros, long toMicros) {
    }

    /**
     * What a documented limit of a guarantee lets through on top of the law, {@code permits} in every span that may
     * hold part of {@code [fromMicros, toMicros]} (e.g. an outage under the {@code local} policy).
     */
    record Allowance(String what, long permits, long fromMicros, long toMicros) {
    }

    private final Map<String, ConcurrentLinkedQueue<Grant>> grants = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Loss> losses = new ConcurrentLinkedQueue<>();
    /** Losses of every limiter (FLUSHALL, a restart), and of one (DEL of its keys), by key. */
    private final Map<String, ConcurrentLinkedQueue<Loss>> lossesOf = new ConcurrentHashMap<>();
    private final Map<String, ConcurrentLinkedQueue<Refund>> refunds = new ConcurrentHashMap<>();

    void kept(Grant grant) {
        grants.computeIfAbsent(grant.key(), key -> new ConcurrentLinkedQueue<>()).add(grant);
    }

    void gaveBack(Refund refund) {
        refunds.computeIfAbsent(refund.key(), key -> new ConcurrentLinkedQueue<>()).add(refund);
    }

    void lostAll(String what, long fromMicros, long toMicros) {
        losses.add(new Loss(what, fromMicros, toMicros));
    }

    void lost(String key, String what, long fromMicros, long toMicros) {
        lossesOf.computeIfAbsent(key, k -> new ConcurrentLinkedQueue<>()).add(new Loss(what, fromMicros, toMicros));
    }

    /** The grants kept on {@code key}, by the start of their range. */
    List<Grant> grants(String key) {
        return grants.getOrDefault(key, new ConcurrentLinkedQueue<>()).stream()
                .sorted(Comparator.comparingLong(Grant::fromMicros)).toList();
    }

    /** The grants of {@code key} given back by the calls of the run. */
    List<Refund> refunds(String key) {
        return List.copyOf(refunds.getOrDefault(key, new ConcurrentLinkedQueue<>()));
    }

    /** The losses {@code key}'s limiter went through. */
    List<Loss> losses(String key) {
        List<Loss> all = new java.util.ArrayList<>(losses);
        all.addAll(lossesOf.getOrDefault(key, new ConcurrentLinkedQueue<>()));
        return all;
    }

    long permits(String key) {
        return grants(key).stream().mapToLong(Grant::permits).sum();
    }

    /** The law's verdict on {@code key}'s grants: see {@link LawCheck}. */
    LawCheck.Worst check(String key) {
        return check(key, List.of());
    }

    /** The law's verdict on {@code key}'s grants, with {@code allowances} on top. */
    LawCheck.Worst check(String key, List<Allowance> allowances) {
        return LawCheck.worst(grants(key), losses(key), allowances);
    }
}
