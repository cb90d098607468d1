package io.github.redissonratelimit.redis;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

import io.github.redissonratelimit.redis.ScriptCallLog.ScriptCall;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RedisServerProcess;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * A redis-server of a test's own that loses its data on demand ({@code SCRIPT FLUSH} and {@code FLUSHALL}, or a
 * kill and restart, empty), while {@link ScriptCallLog} records the script calls on some limiters across the
 * losses. The server starts with scripts denied to its default user ({@link #start()}), and each recording allows
 * them once {@code MONITOR} reads, so that no script runs unrecorded, not even right after a restart.
 */
final class RecordedRedis implements AutoCloseable {

    private static final String[] SCRIPTS_DENIED = {"--user", "default", "on", "nopass", "~*", "&*", "+@all",
        "-eval", "-evalsha"};

    private final RedisServerProcess server;
    private final Set<String> limiterNames;
    private final List<ScriptCall> calls = Collections.synchronizedList(new ArrayList<>());
    private final List<Long> lossMicros = new ArrayList<>();
    private ScriptCallLog log;

    /** Records on {@code server} (from {@link #start()}) until closed. */
    RecordedRedis(RedisServerProcess server, Set<String> limiterNames) {
        this.server = server;
        this.limiterNames = Set.copyOf(limiterNames);
        this.log = ScriptCallLog.start(server.endpoint(), limiterNames, calls);
        allowScripts(true);
    }

    /** A redis-server on a free port that runs no script until a recording allows it. */
    static RedisServerProcess start() {
        return RedisServerProcess.startOnFreePort(SCRIPTS_DENIED);
    }

    RedisEndpoint endpoint() {
        return server.endpoint();
    }

    /** Empties Redis, its script cache too, at once. */
    void flushAll() {
        try (RespClient cli = server.endpoint().cli()) {
            cli.command("SCRIPT", "FLUSH");
            cli.command("MULTI");
            cli.command("FLUSHALL");
            cli.command("TIME");
            List<Object> replies = cli.list("EXEC");
            lossMicros.add(micros(replies.get(1)));
        }
    }

    /** Kills Redis and starts it again, empty, as after a crash without persistence. */
    void restart() {
        allowScripts(false);
        try (RespClient cli = server.endpoint().cli()) {
            lossMicros.add(micros(cli.list("TIME")));
        }
        log.close();
        server.kill();
        server.start();
        log = ScriptCallLog.start(server.endpoint(), limiterNames, calls);
        allowScripts(true);
    }

    /** When Redis lost its data (µs, Redis's clock): no script ran between those it ended and this time. */
    List<Long> lossMicros() {
        return List.copyOf(lossMicros);
    }

    /** The script calls Redis ran on the limiters, in order, until {@link #close()}. */
    List<ScriptCall> calls() {
        return List.copyOf(calls);
    }

    /** Stops recording once every command sent so far was read; scripts are denied again. */
    @Override
    public void close() {
        log.close();
        allowScripts(false);
    }

    private void allowScripts(boolean allowed) {
        try (RespClient cli = server.endpoint().cli()) {
            cli.command("ACL", "SETUSER", "default", allowed ? "+eval" : "-eval", allowed ? "+evalsha" : "-evalsha");
        }
    }

    private static long micros(Object time) {
        List<?> parts = (List<?>) time;
        return Long.parseLong(parts.get(0).toString()) * 1_000_000 + Long.parseLong(parts.get(1).toString());
    }
}
