package io.github.redissonratelimit.test.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A real redis-server process on loopback, owned by a test: it can be stopped and started again
 * on the same port (outage tests), killed like a crash, and started in cluster or sentinel mode.
 * {@link #stop()} keeps its temporary directory for a restart; {@link #close()} also deletes it.
 */
public final class RedisServerProcess implements AutoCloseable {

    private final int port;
    private final List<String> extraArguments;
    private final Path workDir;
    /** The sentinel's own config file (Sentinel refuses to start without a writable one), or null. */
    private final Path sentinelConfig;
    private Process process;

    public RedisServerProcess(int port, List<String> extraArguments) {
        this(port, extraArguments, false);
    }

    private RedisServerProcess(int port, List<String> extraArguments, boolean sentinel) {
        this.port = port;
        this.extraArguments = List.copyOf(extraArguments);
        try {
            this.workDir = Files.createTempDirectory((sentinel ? "redis-sentinel-" : "redis-") + port + "-");
            // deleteOnExit runs in reverse order: the files first, then their directory
            workDir.toFile().deleteOnExit();
            workDir.resolve("redis.log").toFile().deleteOnExit();
            if (sentinel) {
                sentinelConfig = Files.createFile(workDir.resolve("sentinel.conf"));
                sentinelConfig.toFile().deleteOnExit();
            }
            else {
                sentinelConfig = null;
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * A Redis Sentinel ({@code redis-server <dir>/sentinel.conf --sentinel}) on {@code port}, not started yet;
     * {@code sentinelArguments} are the sentinel's directives as options, e.g.
     * {@code "--sentinel", "monitor", "mymaster", "127.0.0.1", "6379", "2"}.
     */
    public static RedisServerProcess sentinel(int port, List<String> sentinelArguments) {
        return new RedisServerProcess(port, sentinelArguments, true);
    }

    public static RedisServerProcess startOnFreePort(String... extraArguments) {
        RedisServerProcess server = new RedisServerProcess(freePort(), List.of(extraArguments));
        server.start();
        return server;
    }

    public int port() {
        return port;
    }

    /** This server as an endpoint: its Redisson clients, a {@link RespClient}, FLUSHALL, KEYS. */
    public RedisEndpoint endpoint() {
        return new RedisEndpoint("127.0.0.1", port, "redis-server process on port " + port);
    }

    public synchronized void start() {
        if (isRunning()) {
            return;
        }
        List<String> command = new ArrayList<>();
        command.add(RedisBinary.path().toString());
        if (sentinelConfig != null) {
            command.addAll(List.of(sentinelConfig.toString(), "--sentinel"));
        }
        command.addAll(List.of("--port", String.valueOf(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--protected-mode", "no",
                "--dir", workDir.toString()));
        command.addAll(extraArguments);
        try {
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(workDir.resolve("redis.log").toFile())
                    .start();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot start " + command, ex);
        }
        awaitReady(Duration.ofSeconds(10));
    }

    public synchronized void stop() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    /** SIGKILL, as a crash: no shutdown, no last word to replicas, sentinels or clients. */
    public synchronized void kill() {
        if (process == null) {
            return;
        }
        try {
            process.destroyForcibly().waitFor();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Stops the server and deletes its directory (log, nodes.conf, sentinel.conf, a replica's dump.rdb). */
    @Override
    public synchronized void close() {
        stop();
        try (Stream<Path> files = Files.walk(workDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
        }
        catch (IOException | UncheckedIOException ex) {
            // already gone, or deleteOnExit gets it
        }
    }

    private void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        RuntimeException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server exited with " + process.exitValue() + ": " + log());
            }
            try (RespClient client = new RespClient("127.0.0.1", port)) {
                if ("PONG".equals(client.string("PING"))) {
                    return;
                }
            }
            catch (RuntimeException ex) {
                last = ex;
            }
            try {
                Thread.sleep(20);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
        }
        throw new IllegalStateException("redis-server on port " + port + " did not answer PING: " + log(), last);
    }

    /** What the server wrote to its log so far, for failure messages. */
    String log() {
        try {
            return Files.readString(workDir.resolve("redis.log"));
        }
        catch (IOException ex) {
            return "(no log)";
        }
    }

    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
