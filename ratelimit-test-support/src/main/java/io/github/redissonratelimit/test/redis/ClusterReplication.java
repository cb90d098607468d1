package io.github.redissonratelimit.test.redis;

import static io.github.redissonratelimit.test.redis.RedisClusterProcess.cli;
import static io.github.redissonratelimit.test.redis.Polling.sleep;

import java.time.Duration;
import java.util.List;

/** The replicas of a {@link RedisClusterProcess}: {@code CLUSTER REPLICATE} once the nodes know each other. */
final class ClusterReplication {

    private ClusterReplication() {
    }

    /** Makes each replica replicate its shard's master, and waits until every replica is in sync. */
    static void replicate(List<RedisServerProcess> masters, List<List<RedisServerProcess>> replicas, Duration timeout) {
        for (int shard = 0; shard < masters.size(); shard++) {
            String masterId;
            try (RespClient cli = cli(masters.get(shard))) {
                masterId = cli.string("CLUSTER", "MYID");
            }
            for (RedisServerProcess replica : replicas.get(shard)) {
                awaitKnown(replica, masterId, timeout);
                try (RespClient cli = cli(replica)) {
                    cli.command("CLUSTER", "REPLICATE", masterId);
                }
            }
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        for (List<RedisServerProcess> ofShard : replicas) {
            for (RedisServerProcess replica : ofShard) {
                while (!info(replica, "replication").contains("master_link_status:up")) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("The replica on port " + replica.port() + " is not in sync");
                    }
                    sleep(50);
                }
            }
        }
    }

    private static void awaitKnown(RedisServerProcess node, String nodeId, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try (RespClient cli = cli(node)) {
                if (cli.string("CLUSTER", "NODES").contains(nodeId)) {
                    return;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("The node on port " + node.port() + " does not know " + nodeId);
            }
            sleep(50);
        }
    }

    static String info(RedisServerProcess node, String section) {
        try (RespClient cli = cli(node)) {
            return cli.string("INFO", section);
        }
        catch (RuntimeException ex) {
            return "";
        }
    }
}
