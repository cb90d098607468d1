package io.github.redissonratelimit.test.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redis Sentinel on loopback, started from the same redis-server binary as {@link RedisServerProcess}
 * (no Docker): one master, one replica ({@code --replicaof} the master) and three sentinels (each
 * {@code redis-server sentinel.conf --sentinel}, quorum 2) monitoring the master as {@link #MASTER_NAME}.
 * {@link #start()} returns once the replica is in sync and every sentinel knows the master, the replica and
 * the two other sentinels (about 2 s, the sentinels' hello period), so that a Redisson client in sentinel mode
 * passes its start-up checks and a failover can reach its quorum.
 * <p>
 * The sentinels declare the master down after {@value #DOWN_AFTER_MILLIS} ms without an answer;
 * {@link #killMaster()} (SIGKILL) then {@link #awaitNewMaster} sees the replica promoted, typically 2 to 4 s.
 * Everything the deployment sends or reads goes to the master the sentinels currently report.
 */
public final class RedisSentinelProcess implements RedisDeployment, AutoCloseable {

    public static final String MASTER_NAME = "mymaster";
    public static final int DOWN_AFTER_MILLIS = 1_000;
    /** Also the time a failed election waits before the next one (twice this). */
    public static final int FAILOVER_TIMEOUT_MILLIS = 3_000;
    private static final int SENTINELS = 3;
    private static final int QUORUM = 2;
    private static final String HOST = "127.0.0.1";

    private static volatile RedisSentinelProcess shared;

    /** The data servers: the first master, then its replica. */
    private final List<RedisServerProcess> servers;
    private final List<RedisServerProcess> sentinels;

    private RedisSentinelProcess(List<RedisServerProcess> servers, List<RedisServerProcess> sentinels) {
        this.servers = servers;
        this.sentinels = sentinels;
    }

    /** The deployment shared by the tests of this JVM, started on first use, stopped at exit; do not fail it over. */
    public static RedisSentinelProcess shared() {
        RedisSentinelProcess current = shared;
        if (current == null) {
            synchronized (RedisSentinelProcess.class) {
                current = shared;
                if (current == null) {
                    current = start();
                    shared = current;
                }
            }
        }
        return current;
    }

    /** A new deployment of its own (for a test that fails it over); the caller closes it, else JVM exit does. */
    public static RedisSentinelProcess start() {
        List<RedisServerProcess> servers = new ArrayList<>();
        List<RedisServerProcess> sentinels = new ArrayList<>();
        try {
            // no 5 s wait for more replicas before the diskless full sync
            List<String> dataOptions = List.of("--repl-diskless-sync-delay", "0");
            RedisServerProcess master = new RedisServerProcess(RedisServerProcess.freePort(), dataOptions);
            servers.add(master);
            master.start();
            List<String> replicaOptions = new ArrayList<>(dataOptions);
            replicaOptions.addAll(List.of("--replicaof", HOST, String.valueOf(master.port())));
            RedisServerProcess replica = new RedisServerProcess(RedisServerProcess.freePort(), replicaOptions);
            servers.add(replica);
            replica.start();
            // before the sentinels start: a sentinel learns of replicas from the master's INFO, which it reads
            // once on connecting and then only every 10 s
            Polling.await(Duration.ofSeconds(20), "the replica on port " + replica.port() + " to sync", () -> {
                String info = endpointOf(replica).string("INFO", "replication");
                return info.contains("master_link_status:up") ? "" : Polling.notYet(info);
            });
            for (int i = 0; i < SENTINELS; i++) {
                RedisServerProcess sentinel = RedisServerProcess.sentinel(RedisServerProcess.freePort(), List.of(
                        "--sentinel", "monitor", MASTER_NAME, HOST, String.valueOf(master.port()),
                        String.valueOf(QUORUM),
                        "--sentinel", "down-after-milliseconds", MASTER_NAME, String.valueOf(DOWN_AFTER_MILLIS),
                        "--sentinel", "failover-timeout", MASTER_NAME, String.valueOf(FAILOVER_TIMEOUT_MILLIS),
                        "--sentinel", "parallel-syncs", MASTER_NAME, "1"));
                sentinels.add(sentinel);
                sentinel.start();
            }
            RedisSentinelProcess deployment = new RedisSentinelProcess(List.copyOf(servers), List.copyOf(sentinels));
            Runtime.getRuntime().addShutdownHook(new Thread(deployment::close, "stop-test-redis-sentinel"));
            deployment.awaitMonitoring(master.port(), replica.port(), Duration.ofSeconds(30));
            return deployment;
        }
        catch (RuntimeException ex) {
            sentinels.forEach(RedisServerProcess::close);
            servers.forEach(RedisServerProcess::close);
            throw ex;
        }
    }

    /** Every sentinel reports the master, the replica (up, in sync) and the other sentinels. */
    private void awaitMonitoring(int masterPort, int replicaPort, Duration timeout) {
        Polling.await(timeout, "the sentinels on ports " + sentinelPorts() + " to monitor " + MASTER_NAME, () -> {
            StringBuilder report = new StringBuilder();
            boolean ready = true;
            for (RedisServerProcess sentinel : sentinels) {
                try (RespClient cli = cli(sentinel.port())) {
                    List<Object> master = cli.list("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
                    List<Map<String, String>> replicas = maps(cli.list("SENTINEL", "REPLICAS", MASTER_NAME));
                    int others = cli.list("SENTINEL", "SENTINELS", MASTER_NAME).size();
                    boolean replicaUp = replicas.stream().anyMatch(replica ->
                            String.valueOf(replicaPort).equals(replica.get("port"))
                                    && "slave".equals(replica.get("flags"))
                                    && "ok".equals(replica.get("master-link-status")));
                    ready &= List.of(HOST, String.valueOf(masterPort)).equals(master) && replicaUp
                            && others == SENTINELS - 1;
                    report.append(sentinel.port()).append(": master ").append(master).append(", replicas ")
                            .append(replicas).append(", other sentinels ").append(others).append("; ");
                }
            }
            return ready ? "" : Polling.notYet(report);
        });
    }

    public String masterName() {
        return MASTER_NAME;
    }

    /** redis://127.0.0.1:port of every sentinel, as Redisson's {@code addSentinelAddress} takes them. */
    public List<String> sentinelAddresses() {
        return sentinelPorts().stream().map(port -> "redis://" + HOST + ":" + port).toList();
    }

    public List<Integer> sentinelPorts() {
        return sentinels.stream().map(RedisServerProcess::port).toList();
    }

    /** The master as the first sentinel that answers reports it. */
    public RedisEndpoint master() {
        RuntimeException last = null;
        for (RedisServerProcess sentinel : sentinels) {
            try (RespClient cli = cli(sentinel.port())) {
                List<Object> address = cli.list("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
                return new RedisEndpoint(String.valueOf(address.get(0)), Integer.parseInt(String.valueOf(address.get(1))),
                        "Sentinel master " + MASTER_NAME);
            }
            catch (RuntimeException ex) {
                last = ex;
            }
        }
        throw new IllegalStateException("No sentinel of " + sentinelPorts() + " reports the master", last);
    }

    /** The running data servers other than {@link #master()}: the replica, or after a failover the new replicas. */
    public List<RedisEndpoint> replicas() {
        int master = master().port();
        return servers.stream().filter(server -> server.isRunning() && server.port() != master)
                .map(RedisSentinelProcess::endpointOf).toList();
    }

    /** SIGKILL to the current master, as a crash; returns where it was, for {@link #awaitNewMaster}. */
    public RedisEndpoint killMaster() {
        RedisEndpoint master = master();
        servers.stream().filter(server -> server.port() == master.port()).findFirst()
                .orElseThrow(() -> new IllegalStateException(master + " is not a server of " + describe()))
                .kill();
        return master;
    }

    /**
     * Waits until every running sentinel reports a master other than {@code previous} and that server says it
     * is a master ({@code role:master}); returns it.
     */
    public RedisEndpoint awaitNewMaster(RedisEndpoint previous, Duration timeout) {
        String what = "the sentinels on ports " + sentinelPorts() + " to fail over from port " + previous.port();
        int port = Integer.parseInt(Polling.await(timeout, what, () -> {
            List<Object> reported = new ArrayList<>();
            for (RedisServerProcess sentinel : sentinels) {
                if (sentinel.isRunning()) {
                    try (RespClient cli = cli(sentinel.port())) {
                        reported.add(cli.list("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME));
                    }
                }
            }
            List<?> first = (List<?>) reported.get(0);
            boolean agreed = reported.stream().allMatch(first::equals)
                    && Integer.parseInt(String.valueOf(first.get(1))) != previous.port();
            if (agreed && endpointOf(Integer.parseInt(String.valueOf(first.get(1))))
                    .string("INFO", "replication").contains("role:master")) {
                return String.valueOf(first.get(1));
            }
            return Polling.notYet("the sentinels report " + reported);
        }));
        return endpointOf(port);
    }

    /** A Redisson client in sentinel mode, reading from the master; the caller shuts it down. */
    @Override
    public RespClient cliFor(String key) {
        return master().cli();
    }

    @Override
    public RedissonClient newRedissonClient() {
        Config config = new Config();
        ReplicatedRedisson.testPools(config.useSentinelServers()
                .setMasterName(MASTER_NAME)
                .addSentinelAddress(sentinelAddresses().toArray(String[]::new)));
        return Redisson.create(config);
    }

    /** {@code FLUSHALL} on the master (the replicas follow). */
    @Override
    public void flushAll() {
        master().flushAll();
    }

    /**
     * The master's {@code INFO commandstats} (the replicas only apply its writes), without {@code REPLCONF} and
     * {@code PUBLISH}: the replica acknowledges its offset every second and each sentinel publishes its hello
     * on {@code __sentinel__:hello} every 2 s, whatever the clients under test do. The sentinels' {@code PING}
     * and {@code INFO} remain.
     */
    @Override
    public CommandStats commandStats() {
        return master().commandStats().without("replconf", "publish");
    }

    @Override
    public List<String> keys(String pattern) {
        return master().keys(pattern);
    }

    @Override
    public Object command(String... args) {
        return master().command(args);
    }

    @Override
    public String describe() {
        return "Redis Sentinel '" + MASTER_NAME + "': data servers on ports "
                + servers.stream().map(RedisServerProcess::port).toList() + ", sentinels on ports " + sentinelPorts()
                + " (" + RedisBinary.path() + ")";
    }

    /** Stops the sentinels first (no failover on the way out), then the servers, and deletes their directories. */
    @Override
    public void close() {
        sentinels.forEach(RedisServerProcess::close);
        servers.forEach(RedisServerProcess::close);
    }

    /** The logs of every process, for a test that wants to explain a failure. */
    public String logs() {
        StringBuilder logs = new StringBuilder();
        servers.forEach(server -> logs.append("--- redis-server ").append(server.port()).append('\n').append(server.log()));
        sentinels.forEach(sentinel -> logs.append("--- sentinel ").append(sentinel.port()).append('\n')
                .append(sentinel.log()));
        return logs.toString();
    }

    private static RedisEndpoint endpointOf(RedisServerProcess server) {
        return endpointOf(server.port());
    }

    private static RedisEndpoint endpointOf(int port) {
        return new RedisEndpoint(HOST, port, "redis-server process of a Sentinel deployment");
    }

    private static RespClient cli(int port) {
        return new RespClient(HOST, port);
    }

    /** {@code SENTINEL REPLICAS}/{@code MASTERS} replies: one flat field-value list per instance. */
    private static List<Map<String, String>> maps(List<Object> instances) {
        List<Map<String, String>> maps = new ArrayList<>();
        for (Object instance : instances) {
            List<?> fields = (List<?>) instance;
            Map<String, String> map = new HashMap<>();
            for (int i = 0; i + 1 < fields.size(); i += 2) {
                map.put(String.valueOf(fields.get(i)), String.valueOf(fields.get(i + 1)));
            }
            maps.add(map);
        }
        return maps;
    }
}
