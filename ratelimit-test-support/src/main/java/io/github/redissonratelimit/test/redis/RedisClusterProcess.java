package io.github.redissonratelimit.test.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.BaseMasterSlaveServersConfig;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;

/**
 * A Redis Cluster of masters on loopback, started from the same redis-server binary as
 * {@link RedisServerProcess} (no Docker): each node runs with {@code --cluster-enabled yes} and its own
 * config file in a temporary directory; the slots are split evenly ({@code CLUSTER ADDSLOTSRANGE}),
 * the nodes meet, and {@link #start} returns once every node reports {@code cluster_state:ok}.
 */
public final class RedisClusterProcess implements RedisDeployment, AutoCloseable {

    private static final int SLOTS = 16384;

    private static volatile RedisClusterProcess shared;

    private final List<RedisServerProcess> nodes;
    private final int[] firstSlots;

    private RedisClusterProcess(List<RedisServerProcess> nodes, int[] firstSlots) {
        this.nodes = nodes;
        this.firstSlots = firstSlots;
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
        if (masters < 3) {
            throw new IllegalArgumentException("Redis Cluster needs at least 3 masters but " + masters + " were asked for");
        }
        List<RedisServerProcess> nodes = new ArrayList<>();
        int[] firstSlots = new int[masters];
        int firstBusPort = RedisServerProcess.freePort();
        try {
            for (int i = 0; i < masters; i++) {
                RedisServerProcess node = new RedisServerProcess(RedisServerProcess.freePort(), List.of(
                        "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", "5000",
                        "--cluster-port", String.valueOf(i == 0 ? firstBusPort : RedisServerProcess.freePort()),
                        "--cluster-require-full-coverage", "yes"));
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
            for (int i = 1; i < masters; i++) {
                try (RespClient cli = cli(nodes.get(i))) {
                    cli.command("CLUSTER", "MEET", "127.0.0.1", String.valueOf(nodes.get(0).port()),
                            String.valueOf(firstBusPort));
                }
            }
            RedisClusterProcess cluster = new RedisClusterProcess(List.copyOf(nodes), firstSlots);
            cluster.awaitOk(Duration.ofSeconds(30));
            return cluster;
        }
        catch (RuntimeException ex) {
            nodes.forEach(RedisServerProcess::close);
            throw ex;
        }
    }

    private void awaitOk(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            boolean ok = true;
            for (RedisServerProcess node : nodes) {
                try (RespClient cli = cli(node)) {
                    last = cli.string("CLUSTER", "INFO");
                    ok &= last.contains("cluster_state:ok") && last.contains("cluster_known_nodes:" + nodes.size())
                            && last.contains("cluster_slots_ok:" + SLOTS);
                }
            }
            if (ok) {
                return;
            }
            sleep(50);
        }
        throw new IllegalStateException("The test cluster on ports " + ports() + " did not reach cluster_state:ok: "
                + last);
    }

    /** redis://127.0.0.1:port of every master. */
    public List<String> nodeAddresses() {
        return nodes.stream().map(node -> "redis://127.0.0.1:" + node.port()).toList();
    }

    public List<Integer> ports() {
        return nodes.stream().map(RedisServerProcess::port).toList();
    }

    /** A RESP client to the master that holds {@code key}'s slot; the caller closes it. */
    @Override
    public RespClient cliFor(String key) {
        return cli(nodes.get(nodeIndexOf(KeySlot.of(key))));
    }

    @Override
    public RedissonClient newRedissonClient() {
        Config config = new Config();
        testPools(config.useClusterServers().addNodeAddress(nodeAddresses().toArray(String[]::new)));
        return Redisson.create(config);
    }

    /** Reads from masters only, small pools, short timeouts: what the tests' clients of a replicated Redis use. */
    static <T extends BaseMasterSlaveServersConfig<T>> T testPools(T config) {
        return config.setReadMode(ReadMode.MASTER)
                .setMasterConnectionMinimumIdleSize(2)
                .setMasterConnectionPoolSize(16)
                .setSlaveConnectionMinimumIdleSize(0)
                .setSubscriptionConnectionMinimumIdleSize(1)
                .setTimeout(3_000)
                .setRetryAttempts(1);
    }

    @Override
    public void flushAll() {
        nodes.forEach(node -> {
            try (RespClient cli = cli(node)) {
                cli.command("FLUSHALL");
            }
        });
    }

    @Override
    public CommandStats commandStats() {
        CommandStats sum = null;
        for (RedisServerProcess node : nodes) {
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
        for (RedisServerProcess node : nodes) {
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

    /** Which master (0-based) holds {@code key}. */
    public int nodeOf(String key) {
        return nodeIndexOf(KeySlot.of(key));
    }

    @Override
    public String describe() {
        return "Redis Cluster of " + nodes.size() + " masters on ports " + ports() + " (" + RedisBinary.path() + ")";
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

    private static RespClient cli(RedisServerProcess node) {
        return new RespClient("127.0.0.1", node.port());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
