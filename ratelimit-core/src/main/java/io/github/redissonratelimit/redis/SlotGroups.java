package io.github.redissonratelimit.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redissonratelimit.naming.LimiterNaming;

/**
 * Which decisions of one rate limited call can share a script call: a script may only touch keys of one slot on a
 * Redis Cluster, so there the limiters whose names hash to the same slot; anywhere else, all of them.
 */
final class SlotGroups {

    private SlotGroups() {
    }

    /**
     * {@code calls} (the decisions of one rate limited call, at least two) as script calls: a group per slot (one
     * group off a cluster), a call alone in its slot as itself, in the order of each one's first call.
     */
    static List<QueuedAcquire> of(List<AcquireCall> calls, boolean cluster) {
        if (!cluster) {
            return List.of(new AcquireGroup(List.copyOf(calls)));
        }
        Map<Integer, List<AcquireCall>> bySlot = new LinkedHashMap<>();
        for (AcquireCall call : calls) {
            bySlot.computeIfAbsent(LimiterNaming.slotOf(call.limiterName()), slot -> new ArrayList<>(2)).add(call);
        }
        List<QueuedAcquire> groups = new ArrayList<>(bySlot.size());
        for (List<AcquireCall> slot : bySlot.values()) {
            groups.add(slot.size() == 1 ? slot.get(0) : new AcquireGroup(List.copyOf(slot)));
        }
        return groups;
    }
}
