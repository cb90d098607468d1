package io.github.redissonratelimit.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redissonratelimit.test.redis.RespClient;

/**
 * A {@code MONITOR} connection to Redis whose lines go, in Redis's order, to a reader on a thread of its own until
 * {@link #stop}: which sends a marker on another connection and answers what the reader made of the lines before it.
 */
final class MonitorStream<T> implements AutoCloseable {

    /** What is made of the lines: each in turn, then the result once the marker came. */
    interface Lines<T> {

        void line(String line);

        T result();
    }

    private final String host;
    private final int port;
    private final Socket socket;
    private final String marker = "monitor-end-" + UUID.randomUUID();
    private final CompletableFuture<T> seen = new CompletableFuture<>();

    private MonitorStream(String host, int port, Lines<T> lines, String threadName) throws IOException {
        this.host = host;
        this.port = port;
        this.socket = new Socket();
        socket.connect(new InetSocketAddress(host, port), 2_000);
        OutputStream out = socket.getOutputStream();
        out.write("*1\r\n$7\r\nMONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        String ok = in.readLine();
        if (!"+OK".equals(ok)) {
            throw new IOException("MONITOR answered " + ok);
        }
        Thread reader = new Thread(() -> read(in, lines), threadName);
        reader.setDaemon(true);
        reader.start();
    }

    static <T> MonitorStream<T> start(String host, int port, Lines<T> lines, String threadName) {
        try {
            return new MonitorStream<>(host, port, lines, threadName);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Stops reading and returns what was made of the lines since the start, waiting at most {@code wait}. */
    T stop(Duration wait) {
        try (RespClient client = new RespClient(host, port)) {
            client.command("ECHO", marker);
        }
        try {
            return seen.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (Exception ex) {
            throw new IllegalStateException("MONITOR did not see its end marker", ex);
        }
    }

    private void read(BufferedReader in, Lines<T> lines) {
        try {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.contains(marker)) {
                    seen.complete(lines.result());
                    return;
                }
                lines.line(line);
            }
            seen.completeExceptionally(new IOException("MONITOR connection closed"));
        }
        catch (IOException | RuntimeException ex) {
            seen.completeExceptionally(ex);
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        }
        catch (IOException ex) {
            // closing a monitor connection: nothing to do
        }
    }
}
