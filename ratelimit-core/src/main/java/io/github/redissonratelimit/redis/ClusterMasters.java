package io.github.redissonratelimit.redis;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.redissonratelimit.naming.LimiterNaming;

/**
 * Which master of a Redis Cluster owns each hash slot, as {@code host:port}: from {@code CLUSTER SLOTS}, whose
 * reply names each range's master first. It is called from a script ({@link #SLOT_MASTERS}) through
 * {@link RScript}, the API the decisions use on every supported Redisson: the {@code clusterSlots()} of Redisson's
 * {@code RedisNodes.CLUSTER} API fails to decode Redis 7's reply on Redisson 3.24 (an empty metadata map per node),
 * and does not say which node of a range is the master.
 *
 * <p>The map is read again soon after a failed decision (a slot may have moved to a promoted replica), and when
 * the masters are read ({@link #masters()}, the per-master circuit states) if it is older than two seconds; never
 * while decisions succeed, so that a healthy cluster sees no command but the decisions' own, and never blocking a
 * caller. Until the first answer (asked again every two seconds while decisions come), every limiter belongs to
 * {@link #UNKNOWN}. A slot map left stale by a resharding or a manual failover still groups the slots as before,
 * under the old master's name, until the next failure or read. The question goes to every master of the last map at once (routed by a key of
 * one of its slots; the first answer wins), so that a dead master does not hold it up; the first one goes to the
 * masters of a few keys spread over the slots.
 */
final class ClusterMasters {

    /** The master of the limiters whose slot has no known owner yet. */
    static final String UNKNOWN = "unknown";

    /** Start, end, master host and master port of each slot range, flat. Reads no key. */
    static final String SLOT_MASTERS = """
            local out = {}
            for _, range in ipairs(redis.call('cluster', 'slots')) do
              table.insert(out, range[1])
              table.insert(out, range[2])
              table.insert(out, range[3][1])
              table.insert(out, range[3][2])
            end
            return out""";

    private static final int SLOTS = 16384;
    private static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final long REFRESH_AFTER_FAILURE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    private static final long WATCH_AFTER_FAILURE_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final long NEVER = Long.MIN_VALUE;
    private static final Log logger = LogFactory.getLog(ClusterMasters.class);
    private static final String ROUTING_KEY_PREFIX = "ratelimit:cluster-slots:";
    private static final List<String> FIRST_ROUTING_KEYS = IntStream.range(0, 8)
            .mapToObj(i -> ROUTING_KEY_PREFIX + i).toList();

    private final RScript scripts;
    private final AtomicBoolean refreshing = new AtomicBoolean();
    /** A key of one of each master's slots, so that the question can be sent to that master. */
    private final Map<String, String> routingKeys = new ConcurrentHashMap<>();
    private volatile String[] ownerBySlot;
    private volatile Set<String> masters = Set.of();
    private volatile long refreshedAt = System.nanoTime() - REFRESH_NANOS;
    private volatile long lastFailureAt = NEVER;
    /** Done once every question of the first refresh was answered (or failed), or after half a second. */
    private final CompletableFuture<Void> firstMap = new CompletableFuture<Void>()
            .completeOnTimeout(null, 500, TimeUnit.MILLISECONDS);

    ClusterMasters(RedissonClient redisson) {
        this.scripts = redisson.getScript(ScriptCodec.INSTANCE);
        refresh(0);
    }

    /**
     * Done once the first slot map is known (or could not be had soon): the first decisions wait for it, so that
     * they already count per master, and so that its questions are over before the decisions' traffic begins.
     */
    CompletableFuture<Void> firstMap() {
        return firstMap;
    }

    /** The masters of {@code redisson}'s cluster; null when it is not in cluster mode (one master). */
    static ClusterMasters of(RedissonClient redisson) {
        Config config = redisson.getConfig();
        return config != null && config.isClusterConfig() ? new ClusterMasters(redisson) : null;
    }

    /** The master of {@code limiterName}'s slot. */
    String masterOf(String limiterName) {
        String[] owners = ownerBySlot;
        if (owners == null) {
            refresh(REFRESH_NANOS);
            return UNKNOWN;
        }
        long failedAt = lastFailureAt;
        if (failedAt != NEVER && System.nanoTime() - failedAt < WATCH_AFTER_FAILURE_NANOS) {
            // a master failed lately: its replica may be promoted any time, and the calls skipped while its circuit is
            // open would not tell, so they ask (at most every 200 ms) until the slots' new master answers
            refresh(REFRESH_AFTER_FAILURE_NANOS);
        }
        String owner = owners[LimiterNaming.slotOf(limiterName)];
        return owner != null ? owner : UNKNOWN;
    }

    /** The masters that own slots, as of the last answer; a read asks again when that is old. */
    Set<String> masters() {
        refresh(REFRESH_NANOS);
        return masters;
    }

    /**
     * A decision failed: the slot may have moved (a promoted replica), so ask again soon, and keep asking every
     * 200 ms while decisions come, for a minute, so that a promoted replica's calls go to its own circuit.
     */
    void onFailure() {
        long now = System.nanoTime();
        lastFailureAt = now == NEVER ? now + 1 : now;
        refresh(REFRESH_AFTER_FAILURE_NANOS);
    }

    private void refresh(long maxAgeNanos) {
        if (System.nanoTime() - refreshedAt < maxAgeNanos || !refreshing.compareAndSet(false, true)) {
            return;
        }
        refreshedAt = System.nanoTime();
        String[] owners = ownerBySlot;
        Set<String> known = masters;
        if (owners == null || known.isEmpty()) {
            ask(FIRST_ROUTING_KEYS);
            return;
        }
        ask(known.stream().map(master -> routingKeys.computeIfAbsent(master, ignored -> routingKey(owners, master)))
                .filter(key -> key != null).toList());
    }

    private void ask(List<String> routingKeys) {
        if (routingKeys.isEmpty()) {
            refreshing.set(false);
            firstMap.complete(null);
            return;
        }
        AtomicBoolean answered = new AtomicBoolean();
        AtomicInteger pending = new AtomicInteger(routingKeys.size());
        for (String routingKey : routingKeys) {
            CompletableFuture<List<Object>> reply;
            try {
                reply = scripts.<List<Object>>evalAsync(routingKey, RScript.Mode.READ_WRITE, SLOT_MASTERS,
                        RedissonCompatibility.LIST, List.of()).toCompletableFuture();
            }
            catch (RuntimeException ex) {
                reply = CompletableFuture.failedFuture(ex);
            }
            reply.whenComplete((ranges, ex) -> {
                boolean usable = ex == null && ranges != null && !ranges.isEmpty();
                if (usable && answered.compareAndSet(false, true)) {
                    try {
                        apply(ranges);
                    }
                    finally {
                        refreshing.set(false);
                    }
                }
                if (pending.decrementAndGet() == 0) {
                    if (!answered.get()) {
                        refreshing.set(false);
                    }
                    firstMap.complete(null);
                }
            });
        }
    }

    private void apply(List<Object> ranges) {
        String[] owners = new String[SLOTS];
        Set<String> owning = new HashSet<>();
        for (int i = 0; i + 3 < ranges.size(); i += 4) {
            int first = Math.max(0, Integer.parseInt(String.valueOf(ranges.get(i))));
            int last = Math.min(SLOTS - 1, Integer.parseInt(String.valueOf(ranges.get(i + 1))));
            String master = ranges.get(i + 2) + ":" + ranges.get(i + 3);
            if (first <= last) {
                Arrays.fill(owners, first, last + 1, master);
                owning.add(master);
            }
        }
        routingKeys.keySet().retainAll(owning);
        ownerBySlot = owners;
        Set<String> before = masters;
        masters = Set.copyOf(owning);
        if (!before.isEmpty() && !before.equals(owning)) {
            logChange(before, owning);
        }
    }

    /** Names the masters that took over slots (e.g. a promoted replica), under which their circuits are logged. */
    private static void logChange(Set<String> before, Set<String> now) {
        Set<String> gone = new TreeSet<>(before);
        gone.removeAll(now);
        Set<String> added = new TreeSet<>(now);
        added.removeAll(before);
        logger.info("Redis Cluster masters now " + new TreeSet<>(now) + (added.isEmpty() ? "" : "; new: " + added)
                + (gone.isEmpty() ? "" : "; no longer holding slots: " + gone) + ". Rate limit decisions, and their "
                + "circuits, go by the master that holds each slot now.");
    }

    /** A key in one of {@code master}'s slots, or null if it owns none. */
    static String routingKey(String[] owners, String master) {
        for (int i = 0; i < 64 * SLOTS; i++) {
            String key = ROUTING_KEY_PREFIX + i;
            if (master.equals(owners[LimiterNaming.slotOf(key)])) {
                return key;
            }
        }
        return null;
    }
}
