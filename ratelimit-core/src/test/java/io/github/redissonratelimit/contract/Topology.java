package io.github.redissonratelimit.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redissonratelimit.test.redis.RedisClusterProcess;
import io.github.redissonratelimit.test.redis.RedisDeployment;
import io.github.redissonratelimit.test.redis.RedisServerProcess;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * Where the contract runs, and the faults it can put Redis through there: stalls ({@code CLIENT PAUSE ... WRITE} on
 * every master, or on the one holding a key) and, on a server of the test's own, a restart that empties it.
 */
abstract class Topology implements AutoCloseable {

    abstract RedisDeployment redis();

    /** Ports of the masters, for pauses. */
    abstract List<Integer> masterPorts();

    /** Whether {@link #restartEmpty()} can restart Redis here. */
    abstract boolean restarts();

    /** Restarts Redis empty, as after a crash without persistence (killed, then started again on the same port). */
    abstract void restartEmpty();

    /** Stalls every master for {@code duration} (writes, scripts included, wait; reads answer). */
    void stallAll(Duration duration) {
        for (int port : masterPorts()) {
            pause(port, duration);
        }
    }

    /** Stalls the master that holds {@code key}. */
    void stallMasterOf(String key, Duration duration) {
        try (RespClient cli = redis().cliFor(key)) {
            cli.command("CLIENT", "PAUSE", String.valueOf(duration.toMillis()), "WRITE");
        }
    }

    private static void pause(int port, Duration duration) {
        try (RespClient cli = new RespClient("127.0.0.1", port)) {
            cli.command("CLIENT", "PAUSE", String.valueOf(duration.toMillis()), "WRITE");
        }
    }

    /** A redis-server process of the test's own: it can be restarted. */
    static Topology standalone() {
        RedisServerProcess server = RedisServerProcess.startOnFreePort();
        return new Topology() {

            @Override
            RedisDeployment redis() {
                return server.endpoint();
            }

            @Override
            List<Integer> masterPorts() {
                return List.of(server.port());
            }

            @Override
            boolean restarts() {
                return true;
            }

            @Override
            void restartEmpty() {
                server.kill();
                server.start();
            }

            @Override
            public void close() {
                server.close();
            }

            @Override
            public String toString() {
                return "standalone";
            }
        };
    }

    /** The shared cluster of three masters (every limiter's keys in one slot). */
    static Topology cluster() {
        RedisClusterProcess cluster = RedisClusterProcess.shared();
        return new Topology() {

            @Override
            RedisDeployment redis() {
                return cluster;
            }

            @Override
            List<Integer> masterPorts() {
                List<Integer> ports = new ArrayList<>();
                for (int shard = 0; shard < 3; shard++) {
                    ports.add(cluster.masterPort(shard));
                }
                return ports;
            }

            @Override
            boolean restarts() {
                return false;
            }

            @Override
            void restartEmpty() {
                throw new UnsupportedOperationException("the shared cluster is not restarted");
            }

            @Override
            public void close() {
                // shared: stopped when the JVM exits
            }

            @Override
            public String toString() {
                return "cluster";
            }
        };
    }
}
