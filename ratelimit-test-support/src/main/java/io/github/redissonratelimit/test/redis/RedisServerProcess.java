package io.github.redissonratelimit.test.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real redis-server process on loopback, owned by a test: it can be stopped and started again
 * on the same port (outage tests) and started in cluster mode.
 */
public final class RedisServerProcess implements AutoCloseable {

    private final int port;
    private final List<String> extraArguments;
    private final Path workDir;
    private Process process;

    public RedisServerProcess(int port, List<String> extraArguments) {
        this.port = port;
        this.extraArguments = List.copyOf(extraArguments);
        try {
            this.workDir = Files.createTempDirectory("redis-" + port + "-");
            // deleteOnExit runs in reverse order: the log first, then its directory
            workDir.toFile().deleteOnExit();
            workDir.resolve("redis.log").toFile().deleteOnExit();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    public static RedisServerProcess startOnFreePort(String... extraArguments) {
        RedisServerProcess server = new RedisServerProcess(freePort(), List.of(extraArguments));
        server.start();
        return server;
    }

    public int port() {
        return port;
    }

    public synchronized void start() {
        if (isRunning()) {
            return;
        }
        List<String> command = new ArrayList<>();
        command.add(RedisBinary.path().toString());
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

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    @Override
    public void close() {
        stop();
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

    private String log() {
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
