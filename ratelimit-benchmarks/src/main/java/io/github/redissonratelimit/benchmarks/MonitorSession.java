package io.github.redissonratelimit.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redissonratelimit.test.redis.RespClient;

/**
 * Watches Redis with {@code MONITOR}, which shows each command a client sent and, marked {@code [0 lua]},
 * each command a script ran: so the round trips of a decision can be told from the work inside its script
 * (INFO commandstats counts both alike).
 */
final class MonitorSession implements AutoCloseable {

    /**
     * The key of the instances' heartbeat ({@code InstanceHeartbeat}): each application context of the harness beats
     * every few seconds, which is no decision's round trip, so its command and the commands its script runs are not
     * counted (a quick run's 20 watched decisions once saw 21 script calls).
     */
    private static final String HEARTBEAT_KEY = "ratelimit-instances:";

    private final String host;
    private final int port;
    private final Socket socket;
    private final String marker = "monitor-end-" + UUID.randomUUID();
    private final CompletableFuture<Commands> seen = new CompletableFuture<>();

    private MonitorSession(String host, int port) throws IOException {
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
        Thread reader = new Thread(() -> read(in), "redis-monitor");
        reader.setDaemon(true);
        reader.start();
    }

    static MonitorSession start(String host, int port) {
        try {
            return new MonitorSession(host, port);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Stops watching and returns what was seen since the start. */
    Commands stop() {
        try (RespClient client = new RespClient(host, port)) {
            client.command("ECHO", marker);
        }
        try {
            return seen.get(30, TimeUnit.SECONDS);
        }
        catch (Exception ex) {
            throw new IllegalStateException("MONITOR did not see its end marker", ex);
        }
    }

    private void read(BufferedReader in) {
        Map<String, Long> sent = new TreeMap<>();
        Map<String, Long> inScripts = new TreeMap<>();
        boolean heartbeat = false; // the last command a client sent, and so the script running, is a heartbeat
        try {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.contains(marker)) {
                    seen.complete(new Commands(sent, inScripts));
                    return;
                }
                int source = line.indexOf('[');
                int sourceEnd = line.indexOf(']', source);
                int nameStart = line.indexOf('"', sourceEnd);
                int nameEnd = line.indexOf('"', nameStart + 1);
                if (source < 0 || sourceEnd < 0 || nameStart < 0 || nameEnd < 0) {
                    continue;
                }
                String command = line.substring(nameStart + 1, nameEnd).toLowerCase();
                boolean fromScript = line.substring(source, sourceEnd).endsWith(" lua");
                if (!fromScript) {
                    heartbeat = line.contains(HEARTBEAT_KEY);
                }
                if (!heartbeat) {
                    (fromScript ? inScripts : sent).merge(command, 1L, Long::sum);
                }
            }
            seen.completeExceptionally(new IOException("MONITOR connection closed"));
        }
        catch (IOException ex) {
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

    /** Commands sent by clients, and commands run inside scripts, by name. */
    record Commands(Map<String, Long> sent, Map<String, Long> inScripts) {

        long sentExcept(String... ignored) {
            long total = sent.values().stream().mapToLong(Long::longValue).sum();
            for (String command : ignored) {
                total -= sent.getOrDefault(command, 0L);
            }
            return total;
        }

        long inScriptsTotal() {
            return inScripts.values().stream().mapToLong(Long::longValue).sum();
        }
    }
}
