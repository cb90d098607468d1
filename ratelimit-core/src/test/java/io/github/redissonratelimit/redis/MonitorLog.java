package io.github.redissonratelimit.redis;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redissonratelimit.test.redis.RedisDeployment;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * What {@code MONITOR} on the master that holds one limiter's keys shows, command by command, to a subclass that
 * makes grants of them ({@link GrantLog}); read on a thread of its own until
 * {@link #close()}, which waits for every command sent before it.
 */
abstract class MonitorLog implements AutoCloseable {

    private static final Pattern TOKEN = Pattern.compile("\"((?:[^\"\\\\]++|\\\\.)*+)\"");

    private final RespClient monitor;
    private final RedisDeployment redis;
    final String limiterName;
    private final String marker = "monitor-log-end-" + UUID.randomUUID();
    private final CountDownLatch drained = new CountDownLatch(1);
    private volatile RuntimeException failure;

    MonitorLog(RedisDeployment redis, String limiterName) {
        this.redis = redis;
        this.limiterName = limiterName;
        this.monitor = redis.cliFor(limiterName);
        if (!"OK".equals(monitor.string("MONITOR"))) {
            throw new IllegalStateException("MONITOR refused");
        }
    }

    /** Starts reading: called once the subclass is constructed, since its fields take what is read. */
    final void startReading(String threadName) {
        Thread reader = new Thread(this::read, threadName);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * One command Redis ran, on the reader thread.
     *
     * @param stampMicros MONITOR's stamp (Redis's clock)
     * @param fromScript whether a script ran it (else a client sent it)
     * @param tokens the command and its arguments, escaped as MONITOR prints them (see {@link #unescape})
     */
    abstract void command(long stampMicros, boolean fromScript, List<String> tokens);

    /** Every command sent before {@link #close()} has been read. */
    void ended() {
    }

    private void read() {
        try {
            while (true) {
                String line = String.valueOf(monitor.receive());
                if (line.contains(marker)) {
                    ended();
                    return;
                }
                parse(line);
            }
        }
        catch (RuntimeException | Error ex) {
            failure = new IllegalStateException("Could not read MONITOR", ex); // reported by close()
        }
        finally {
            drained.countDown();
        }
    }

    private void parse(String line) {
        int space = line.indexOf(' ');
        int close = line.indexOf("] ");
        if (space < 0 || close < 0) {
            return;
        }
        String[] seconds = line.substring(0, space).split("\\.");
        long stampMicros = Long.parseLong(seconds[0]) * 1_000_000 + Long.parseLong(seconds[1]);
        List<String> tokens = new ArrayList<>();
        Matcher matcher = TOKEN.matcher(line.substring(close + 2));
        while (matcher.find()) {
            tokens.add(matcher.group(1));
        }
        command(stampMicros, line.substring(space, close).contains("lua"), tokens);
    }

    /** The bytes MONITOR printed with its escapes ({@code \xHH}, {@code \\}, {@code \"}, {@code \n} ...). */
    static byte[] unescape(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != '\\') {
                out.write(c);
                continue;
            }
            char next = text.charAt(++i);
            switch (next) {
                case 'x' -> {
                    out.write(Integer.parseInt(text.substring(i + 1, i + 3), 16));
                    i += 2;
                }
                case 'n' -> out.write('\n');
                case 'r' -> out.write('\r');
                case 't' -> out.write('\t');
                case 'a' -> out.write(7);
                case 'b' -> out.write('\b');
                default -> out.write(next);
            }
        }
        return out.toByteArray();
    }

    /** Stops recording once every command sent so far has been read. */
    @Override
    public void close() {
        try (RespClient cli = redis.cliFor(limiterName)) {
            cli.command("ECHO", marker);
        }
        try {
            if (!drained.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("MONITOR did not deliver the end marker");
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        finally {
            monitor.close();
        }
        if (failure != null) {
            throw failure;
        }
    }
}
