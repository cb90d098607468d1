package io.github.redissonratelimit.redis;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisClusterMaster;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.cluster.ClusterSlotRange;
import org.redisson.config.Config;

/**
 * Which master of a Redis Cluster owns each hash slot, as {@code host:port}: from {@code CLUSTER SLOTS}, asked of
 * every master Redisson knows (the first answer wins, so a dead master does not hold it up) through Redisson's
 * public {@link RedisNodes#CLUSTER} API, the same on Redisson 3.24 to 4.x.
 *
 * <p>{@code CLUSTER SLOTS} as Redisson decodes it gives each slot range its master and replicas without telling
 * which is the master; the master is the one among them that Redisson routes to (its own view of the masters),
 * else, while Redisson has not seen a promotion yet, the only node Redis still lists (a failed master is not).
 * The map is read again {@link #REFRESH_NANOS every two seconds} while decisions come (or the masters are read),
 * and soon after a failed decision, without ever blocking a caller: until the first answer, every limiter belongs to {@link #UNKNOWN}.
 */
final class ClusterMasters {

    /** The master of the limiters whose slot has no known owner yet. */
    static final String UNKNOWN = "unknown";

    private static final int SLOTS = 16384;
    private static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final long REFRESH_AFTER_FAILURE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final RedissonClient redisson;
    private final AtomicBoolean refreshing = new AtomicBoolean();
    private volatile String[] ownerBySlot;
    private volatile Set<String> masters = Set.of();
    private volatile long refreshedAt = System.nanoTime() - REFRESH_NANOS;

    ClusterMasters(RedissonClient redisson) {
        this.redisson = redisson;
        refresh(0);
    }

    /** The master of {@code limiterName}'s slot. */
    String masterOf(String limiterName) {
        refresh(REFRESH_NANOS);
        String[] owners = ownerBySlot;
        String owner = owners == null ? null : owners[LimiterNaming.slotOf(limiterName)];
        return owner != null ? owner : UNKNOWN;
    }

    /** The masters that own slots, as of the last answer; a read asks again when that is old. */
    Set<String> masters() {
        refresh(REFRESH_NANOS);
        return masters;
    }

    /** A decision failed: the slot may have moved (a promoted replica), so ask again soon. */
    void onFailure() {
        refresh(REFRESH_AFTER_FAILURE_NANOS);
    }

    private void refresh(long maxAgeNanos) {
        if (System.nanoTime() - refreshedAt < maxAgeNanos || !refreshing.compareAndSet(false, true)) {
            return;
        }
        refreshedAt = System.nanoTime();
        List<RedisClusterMaster> known;
        try {
            known = new ArrayList<>(redisson.getRedisNodes(RedisNodes.CLUSTER).getMasters());
        }
        catch (RuntimeException ex) {
            refreshing.set(false);
            return;
        }
        if (known.isEmpty()) {
            refreshing.set(false);
            return;
        }
        Set<String> routed = addresses(known);
        AtomicBoolean answered = new AtomicBoolean();
        AtomicInteger pending = new AtomicInteger(known.size());
        for (RedisClusterMaster master : known) {
            master.clusterSlotsAsync().whenComplete((slots, ex) -> {
                if (ex == null && slots != null && !slots.isEmpty() && answered.compareAndSet(false, true)) {
                    apply(slots, routed);
                    refreshing.set(false);
                }
                else if (pending.decrementAndGet() == 0 && !answered.get()) {
                    refreshing.set(false);
                }
            });
        }
    }

    private void apply(Map<ClusterSlotRange, Set<String>> slots, Set<String> routed) {
        String[] previous = ownerBySlot;
        String[] owners = new String[SLOTS];
        Set<String> owning = new HashSet<>();
        slots.forEach((range, nodes) -> {
            int first = Math.max(0, range.getStartSlot());
            int last = Math.min(SLOTS - 1, range.getEndSlot());
            if (first > last || nodes.isEmpty()) {
                return;
            }
            String owner = owner(nodes, routed, previous == null ? null : previous[first]);
            Arrays.fill(owners, first, last + 1, owner);
            owning.add(owner);
        });
        ownerBySlot = owners;
        masters = Set.copyOf(owning);
    }

    /** The master among a slot range's nodes (master and replicas, in no order). */
    static String owner(Set<String> nodes, Set<String> routed, String previous) {
        Set<String> candidates = new TreeSet<>(nodes);
        candidates.retainAll(routed);
        if (candidates.isEmpty()) {
            // Redisson has not seen the new master yet; a failed master is no longer listed
            candidates = new TreeSet<>(nodes);
        }
        return previous != null && candidates.contains(previous) ? previous : candidates.iterator().next();
    }

    /** {@code ip:port} and {@code host:port} of each node, as CLUSTER SLOTS may name it either way. */
    private static Set<String> addresses(Collection<RedisClusterMaster> nodes) {
        Set<String> addresses = new HashSet<>();
        for (RedisClusterMaster node : nodes) {
            InetSocketAddress address = node.getAddr();
            if (address == null) {
                continue;
            }
            addresses.add(address.getHostString() + ":" + address.getPort());
            if (address.getAddress() != null) {
                addresses.add(address.getAddress().getHostAddress() + ":" + address.getPort());
            }
        }
        return addresses;
    }

    /** The masters of {@code redisson}'s cluster; null when it is not in cluster mode (one master). */
    static ClusterMasters of(RedissonClient redisson) {
        Config config = redisson.getConfig();
        return config != null && config.isClusterConfig() ? new ClusterMasters(redisson) : null;
    }
}
