package io.github.redissonratelimit.redis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which decisions of one rate limited call can share a script call: a script may only touch keys of one slot on a
 * Redis Cluster, so there the limiters whose names hash to the same slot; anywhere else, all of them.
 */
final class SlotGroups {

    private SlotGroups() {
    }

    /**
     * {@code calls} (the decisions of one rate limited call), in the same order, those that may share a script call
     * marked with the same {@link AcquireCall#together()} object; a call alone in its slot is left unmarked.
     */
    static List<AcquireCall> markTogether(List<AcquireCall> calls, boolean cluster) {
        List<AcquireCall> marked = new ArrayList<>(calls.size());
        if (!cluster) {
            Object group = new Object();
            calls.forEach(call -> marked.add(call.withTogether(group)));
            return marked;
        }
        Map<Integer, Integer> perSlot = new HashMap<>();
        for (AcquireCall call : calls) {
            perSlot.merge(LimiterNaming.slotOf(call.limiterName()), 1, Integer::sum);
        }
        Map<Integer, Object> groups = new HashMap<>();
        for (AcquireCall call : calls) {
            int slot = LimiterNaming.slotOf(call.limiterName());
            marked.add(perSlot.get(slot) < 2 ? call
                    : call.withTogether(groups.computeIfAbsent(slot, ignored -> new Object())));
        }
        return marked;
    }

    static boolean anyTogether(List<AcquireCall> calls) {
        for (AcquireCall call : calls) {
            if (call.together() != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code calls} as script calls: each unmarked call alone, the calls marked with the same object together (at
     * the place of the first of them). A marked call whose companions were not taken with it goes alone.
     */
    static List<List<AcquireCall>> units(List<AcquireCall> calls) {
        List<List<AcquireCall>> units = new ArrayList<>(calls.size());
        Map<Object, List<AcquireCall>> byGroup = new IdentityHashMap<>();
        for (AcquireCall call : calls) {
            if (call.together() == null) {
                units.add(List.of(call));
            }
            else {
                List<AcquireCall> unit = byGroup.get(call.together());
                if (unit == null) {
                    unit = new ArrayList<>(2);
                    byGroup.put(call.together(), unit);
                    units.add(unit);
                }
                unit.add(call);
            }
        }
        return units;
    }
}
