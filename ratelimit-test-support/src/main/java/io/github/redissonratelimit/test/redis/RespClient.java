package io.github.redissonratelimit.test.redis;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal RESP2 client for test assertions (INFO, KEYS, DBSIZE, CLUSTER ...).
 * It is deliberately not Redisson, so that what a test observes in Redis is not
 * shaped by the client under test.
 */
public final class RespClient implements Closeable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public RespClient(String host, int port) {
        try {
            this.socket = new Socket();
            this.socket.connect(new InetSocketAddress(host, port), 2_000);
            this.socket.setSoTimeout(10_000);
            this.in = new BufferedInputStream(socket.getInputStream());
            this.out = socket.getOutputStream();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot connect to Redis at " + host + ":" + port, ex);
        }
    }

    /** Sends one command and returns String, Long, List or null; a Redis error becomes an exception. */
    public Object command(String... args) {
        try {
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                request.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
                request.write(bytes);
                request.write("\r\n".getBytes(StandardCharsets.UTF_8));
            }
            out.write(request.toByteArray());
            out.flush();
            return read();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Redis command " + args[0] + " failed", ex);
        }
    }

    /** Reads the next reply without sending anything: the stream of {@code MONITOR} or {@code SUBSCRIBE}. */
    public Object receive() {
        try {
            return read();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Reading from Redis failed", ex);
        }
    }

    /** How long {@link #receive()} and replies may take before failing; the default is 10 seconds. */
    public void setReadTimeout(java.time.Duration timeout) {
        try {
            socket.setSoTimeout((int) timeout.toMillis());
        }
        catch (java.net.SocketException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    public String string(String... args) {
        Object reply = command(args);
        return reply == null ? null : reply.toString();
    }

    public long number(String... args) {
        return ((Number) command(args)).longValue();
    }

    @SuppressWarnings("unchecked")
    public List<Object> list(String... args) {
        return (List<Object>) command(args);
    }

    private Object read() throws IOException {
        int type = in.read();
        String line = readLine();
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new RedisReplyException(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(length);
                readLine();
                return new String(data, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read());
                }
                return items;
            }
            default:
                throw new IOException("Unexpected RESP type '" + (char) type + "' (connection closed?)");
        }
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int next = in.read();
            if (next == -1) {
                throw new IOException("Connection closed by Redis");
            }
            if (previous == '\r' && next == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(next);
            previous = next;
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        }
        catch (IOException ignored) {
            // closing a test connection
        }
    }

    /** An error reply from Redis. */
    public static final class RedisReplyException extends RuntimeException {
        RedisReplyException(String message) {
            super(message);
        }
    }
}
