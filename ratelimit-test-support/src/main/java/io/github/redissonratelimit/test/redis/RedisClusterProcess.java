package io.github.redissonratelimit.test.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * A Redis Cluster of masters on loopback, started from the same redis-server binary as
 * {@link RedisServerProcess} (no Docker): each node runs with {@code --cluster-enabled yes} and its own
 * config file in a temporary directory; the slots are split evenly ({@code CLUSTER ADDSLOTSRANGE}),
 * the nodes meet, and {@link #start} returns once every node reports {@code cluster_state:ok}.
 *
 * <p>With replicas ({@link #start(int, int)}) each master (a "shard" here, numbered in slot order) gets its
 * replicas through {@code CLUSTER REPLICATE}, and the nodes time out after one second, so that
 * {@link #killMaster(int)} followed by {@link #awaitPromotion(int, Duration)} is a failover of a few seconds.
 */
public final class RedisClusterProcess implements RedisDeployment, AutoCloseable {

    private static final int SLOTS = 16384;
    private static final String NODE_TIMEOUT_WITH_REPLICAS = "1000";

    private static volatile RedisClusterProcess shared;

    private final List<RedisServerProcess> nodes;
    private final int[] firstSlots;
    /** The node that is the master of each shard now (a promoted replica after a failover). */
    private final RedisServerProcess[] masters;
    private final List<List<RedisServerProcess>> replicas;

    private RedisClusterProcess(List<RedisServerProcess> nodes, int[] firstSlots,
            List<List<RedisServerProcess>> replicas) {
        this.nodes = nodes;
        this.firstSlots = firstSlots;
        this.masters = nodes.subList(0, firstSlots.length).toArray(RedisServerProcess[]::new);
        this.replicas = replicas;
    }

    /** The three-master cluster shared by the tests of this JVM, started on first use, stopped at exit. */
    public static RedisClusterProcess shared() {
        RedisClusterProcess current = shared;
        if (current == null) {
            synchronized (RedisClusterProcess.class) {
                current = shared;
                if (current == null) {
                    current = start(3);
                    Runtime.getRuntime().addShutdownHook(new Thread(current::close, "stop-test-redis-cluster"));
                    shared = current;
                }
            }
        }
        return current;
    }

    public static RedisClusterProcess start(int masters) {
        return start(masters, 0);
    }

    /** {@code masters} masters with {@code replicasPerMaster} replicas each; the caller closes it. */
    public static RedisClusterProcess start(int masters, int replicasPerMaster) {
        return start(masters, replicasPerMaster, true);
    }

    /**
     * @param requireFullCoverage Redis's {@code cluster-require-full-coverage}: with {@code yes} (Redis's default)
     * every master refuses every command ({@code CLUSTERDOWN}) while some slot has no live master, e.g. from the
     * moment a dead master is marked failed until its replica is promoted; with {@code no} the others keep serving
     */
    public static RedisClusterProcess start(int masters, int replicasPerMaster, boolean requireFullCoverage) {
        if (masters < 3) {
            throw new IllegalArgumentException("Redis Cluster needs at least 3 masters but " + masters + " were asked for");
        }
        List<RedisServerProcess> nodes = new ArrayList<>();
        int[] firstSlots = new int[masters];
        int firstBusPort = RedisServerProcess.freePort();
        String nodeTimeout = replicasPerMaster > 0 ? NODE_TIMEOUT_WITH_REPLICAS : "5000";
        try {
            for (int i = 0; i < masters * (1 + replicasPerMaster); i++) {
                RedisServerProcess node = new RedisServerProcess(RedisServerProcess.freePort(), List.of(
                        "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", nodeTimeout,
                        "--cluster-port", String.valueOf(i == 0 ? firstBusPort : RedisServerProcess.freePort()),
                        "--cluster-require-full-coverage", requireFullCoverage ? "yes" : "no"));
                nodes.add(node);
                node.start();
            }
            for (int i = 0; i < masters; i++) {
                firstSlots[i] = i * SLOTS / masters;
                int lastSlot = (i + 1) * SLOTS / masters - 1;
                try (RespClient cli = cli(nodes.get(i))) {
                    // distinct epochs before the nodes meet, so that no epoch collision has to be resolved
                    cli.command("CLUSTER", "SET-CONFIG-EPOCH", String.valueOf(i + 1));
                    cli.command("CLUSTER", "ADDSLOTSRANGE", String.valueOf(firstSlots[i]), String.valueOf(lastSlot));
                }
            }
            for (int i = 1; i < nodes.size(); i++) {
                try (RespClient cli = cli(nodes.get(i))) {
                    cli.command("CLUSTER", "MEET", "127.0.0.1", String.valueOf(nodes.get(0).port()),
                            String.valueOf(firstBusPort));
                }
            }
            List<List<RedisServerProcess>> replicas = new ArrayList<>();
            for (int shard = 0; shard < masters; shard++) {
                List<RedisServerProcess> ofShard = new ArrayList<>();
                for (int r = 0; r < replicasPerMaster; r++) {
                    ofShard.add(nodes.get(masters + shard * replicasPerMaster + r));
                }
                replicas.add(ofShard);
            }
            RedisClusterProcess cluster = new RedisClusterProcess(List.copyOf(nodes), firstSlots, replicas);
            cluster.awaitOk(Duration.ofSeconds(30));
            ClusterReplication.replicate(List.of(cluster.masters), replicas, Duration.ofSeconds(30));
            cluster.awaitOk(Duration.ofSeconds(30));
            return cluster;
        }
        catch (RuntimeException ex) {
            nodes.forEach(RedisServerProcess::close);
            throw ex;
        }
    }

    /**
     * SIGKILLs the node that is the master of {@code shard} now (0-based, in slot order), as a crash; returns its
     * port. Its replica takes over once the other masters agree it failed ({@link #awaitPromotion}).
     */
    public synchronized int killMaster(int shard) {
        RedisServerProcess master = masters[shard];
        master.kill();
        return master.port();
    }

    /**
     * Waits until a replica of {@code shard} is its master and every running node reports {@code cluster_state:ok};
     * returns the new master's port.
     */
    public int awaitPromotion(int shard, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            for (RedisServerProcess replica : replicas.get(shard)) {
                if (replica.isRunning() && replica != masterOf(shard)
                        && ClusterReplication.info(replica, "replication").contains("role:master")) {
                    synchronized (this) {
                        masters[shard] = replica;
                    }
                    awaitOk(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
                    return replica.port();
                }
            }
            Polling.sleep(50);
        }
        throw new IllegalStateException("No replica of shard " + shard + " became its master within " + timeout);
    }

    /** The port of the node that is the master of {@code shard} now. */
    public synchronized int masterPort(int shard) {
        return masters[shard].port();
    }

    private synchronized RedisServerProcess masterOf(int shard) {
        return masters[shard];
    }

    private synchronized List<RedisServerProcess> currentMasters() {
        return List.of(masters);
    }

    private void awaitOk(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            boolean ok = true;
            for (RedisServerProcess node : nodes) {
                if (!node.isRunning()) {
                    continue;
                }
                try (RespClient cli = cli(node)) {
                    last = cli.string("CLUSTER", "INFO");
                    ok &= last.contains("cluster_state:ok") && last.contains("cluster_known_nodes:" + nodes.size())
                            && last.contains("cluster_slots_ok:" + SLOTS);
                }
            }
            if (ok) {
                return;
            }
            Polling.sleep(50);
        }
        throw new IllegalStateException("The test cluster on ports " + ports() + " did not reach cluster_state:ok: "
                + last);
    }

    /** redis://127.0.0.1:port of every running node, masters first. */
    public List<String> nodeAddresses() {
        return nodes.stream().filter(RedisServerProcess::isRunning).map(node -> "redis://127.0.0.1:" + node.port())
                .toList();
    }

    public List<Integer> ports() {
        return nodes.stream().map(RedisServerProcess::port).toList();
    }

    /** A RESP client to the master that holds {@code key}'s slot; the caller closes it. */
    @Override
    public RespClient cliFor(String key) {
        return cli(masterOf(nodeIndexOf(KeySlot.of(key))));
    }

    @Override
    public RedissonClient newRedissonClient() {
        Config config = new Config();
        ReplicatedRedisson.testPools(config.useClusterServers().addNodeAddress(nodeAddresses().toArray(String[]::new)));
        return Redisson.create(config);
    }

    @Override
    public void flushAll() {
        currentMasters().forEach(node -> {
            try (RespClient cli = cli(node)) {
                cli.command("FLUSHALL");
            }
        });
    }

    @Override
    public CommandStats commandStats() {
        CommandStats sum = null;
        for (RedisServerProcess node : currentMasters()) {
            try (RespClient cli = cli(node)) {
                CommandStats stats = CommandStats.read(cli);
                sum = sum == null ? stats : sum.plus(stats);
            }
        }
        return sum;
    }

    @Override
    public List<String> keys(String pattern) {
        Set<String> keys = new LinkedHashSet<>();
        for (RedisServerProcess node : currentMasters()) {
            try (RespClient cli = cli(node)) {
                cli.list("KEYS", pattern).forEach(key -> keys.add(String.valueOf(key)));
            }
        }
        return List.copyOf(keys);
    }

    @Override
    public Object command(String... args) {
        if (args.length < 2) {
            throw new IllegalArgumentException("A cluster command needs a key to be routed: " + List.of(args));
        }
        try (RespClient cli = cliFor(args[1])) {
            return cli.command(args);
        }
    }

    /** Which master (0-based shard, in slot order) holds {@code key}. */
    public int nodeOf(String key) {
        return nodeIndexOf(KeySlot.of(key));
    }

    @Override
    public String describe() {
        int replicasPerMaster = replicas.isEmpty() ? 0 : replicas.get(0).size();
        return "Redis Cluster of " + masters.length + " masters" + (replicasPerMaster > 0 ? " with " + replicasPerMaster
                + " replica(s) each" : "") + " on ports " + ports() + " (" + RedisBinary.path() + ")";
    }

    @Override
    public void close() {
        nodes.forEach(RedisServerProcess::close);
    }

    private int nodeIndexOf(int slot) {
        for (int i = firstSlots.length - 1; i >= 0; i--) {
            if (slot >= firstSlots[i]) {
                return i;
            }
        }
        throw new IllegalStateException("slot " + slot);
    }

    static RespClient cli(RedisServerProcess node) {
        return new RespClient("127.0.0.1", node.port());
    }
}
