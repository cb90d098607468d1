package io.github.redissonratelimit.redis;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.RedisDeployment;

/**
 * Records, through {@code MONITOR}, every grant a token bucket or a fixed window makes on one OVERALL limiter: the
 * {@code SET} of its {@code <name>:value} key, which holds the whole state of these algorithms. A decision reads
 * Redis's clock ({@code TIME}) and then the key; the grant's time is MONITOR's stamp of that {@code TIME} call, which
 * Redis prints right after it read its clock (a few microseconds later, never earlier).
 * <ul>
 * <li>a token bucket's {@code g}, tat (a big-endian double), {@code <rate>:<interval>:<burst>}: the tat moves
 * {@code permits * interval / rate} past the later of the previous tat and the grant's time, so the permits granted
 * are that distance in emission intervals (rounded: the stamp's lag is far below one emission interval);</li>
 * <li>a fixed window's {@code f<count>:}, start, end and rate (big-endian doubles): the permits are the count minus
 * the count written before in the same window (none when the window is another one, or over).</li>
 * </ul>
 * A write that takes permits back (a refund) is recorded apart. What is recorded is what Redis executed,
 * independent of the client under test.
 */
final class AlgorithmGrantLog extends MonitorLog {

    /**
     * One grant: when Redis ran it (us, Redis's clock), its permits, and for a fixed window the window's bounds
     * (ms) the script counted it in (0 for a token bucket).
     */
    record Event(long serverMicros, long permits, long windowStart, long windowEnd) {
    }

    private static final Pattern BUCKET_CONFIG = Pattern.compile("(\\d+):(\\d+):(\\d+)");
    private static final Pattern WINDOW_COUNT = Pattern.compile("f(\\d+):");

    /**
     * One write of the limiter's key by a script, whatever it did (a grant, a refund, a config change applied to a
     * refused call): when its script read Redis's clock (us), the rate of the config it wrote, and the permits it
     * took as {@link Event} counts them (meaningless for a token bucket's write that changed its config).
     */
    /**
     * One write of the key: its permits, and for a fixed window the second of Redis's clock its window starts at, as
     * the script read the clock (-1 for a token bucket). MONITOR stamps the script's {@code TIME} a few microseconds
     * after the script read it: a grant made at the very end of a window may carry the next second's stamp.
     */
    record Write(long serverMicros, long rate, long permits, long windowSecond) {
    }

    /** A token bucket's stored state: its tat, emission interval (us) and rate; null for another value. */
    private record Bucket(double tat, double emission, long rate) {

        static Bucket of(byte[] value) {
            if (value == null || value.length < 10 || value[0] != 'g') {
                return null;
            }
            Matcher config = BUCKET_CONFIG.matcher(new String(value, 9, value.length - 9, StandardCharsets.ISO_8859_1));
            if (!config.matches()) {
                return null;
            }
            return new Bucket(ByteBuffer.wrap(value, 1, 8).getDouble(),
                    Double.parseDouble(config.group(2)) * 1_000 / Long.parseLong(config.group(1)),
                    Long.parseLong(config.group(1)));
        }
    }

    /** A fixed window's stored state: its count, bounds (ms) and rate; null for another value. */
    private record Window(long count, long start, long end, long rate) {

        static Window of(byte[] value) {
            if (value == null || value.length < 27) {
                return null;
            }
            String text = new String(value, 0, value.length - 24, StandardCharsets.ISO_8859_1);
            Matcher count = WINDOW_COUNT.matcher(text);
            if (!count.matches()) {
                return null;
            }
            ByteBuffer bounds = ByteBuffer.wrap(value, value.length - 24, 24);
            return new Window(Long.parseLong(count.group(1)), (long) bounds.getDouble(), (long) bounds.getDouble(),
                    (long) bounds.getDouble());
        }
    }

    private final String valueKey;
    private final List<Event> grants = new ArrayList<>();
    private final List<Event> refunds = new ArrayList<>();
    private final List<Write> writes = new ArrayList<>();
    /** The stamp of the last TIME a script ran, and the value it last wrote: reader thread only. */
    private long lastTimeMicros;
    private byte[] lastValue;

    private AlgorithmGrantLog(RedisDeployment redis, String limiterName) {
        super(redis, limiterName);
        this.valueKey = LimiterNaming.valueKey(limiterName);
    }

    /** Records on the master that holds the limiter's keys. */
    static AlgorithmGrantLog start(RedisDeployment redis, String limiterName) {
        AlgorithmGrantLog log = new AlgorithmGrantLog(redis, limiterName);
        log.startReading("algorithm-grant-log");
        return log;
    }

    @Override
    void command(long stampMicros, boolean fromScript, List<String> tokens) {
        if (!fromScript) {
            return;
        }
        if (tokens.size() == 1 && tokens.get(0).equalsIgnoreCase("time")) {
            lastTimeMicros = stampMicros;
        }
        else if (tokens.size() >= 3 && tokens.get(0).equalsIgnoreCase("set")
                && new String(unescape(tokens.get(1)), StandardCharsets.UTF_8).equals(valueKey)) {
            written(unescape(tokens.get(2)), lastTimeMicros);
        }
        else if (tokens.size() >= 2 && tokens.get(0).equalsIgnoreCase("del")) {
            throw new IllegalStateException("the log does not follow deleted keys: " + tokens);
        }
    }

    private void written(byte[] value, long micros) {
        Bucket bucket = Bucket.of(value);
        Window window = Window.of(value);
        if (bucket != null) {
            Bucket before = Bucket.of(lastValue);
            double previous = before != null ? before.tat() : 0;
            long permits = Math.round((bucket.tat() - Math.max(previous, micros)) / bucket.emission());
            record(new Event(micros, permits, 0, 0));
            writes.add(new Write(micros, bucket.rate(), permits, -1));
        }
        else if (window != null) {
            Window before = Window.of(lastValue);
            boolean sameWindow = before != null && before.start() == window.start() && before.end() == window.end()
                    && micros / 1_000 < window.end();
            long previous = sameWindow ? before.count() : 0;
            record(new Event(micros, window.count() - previous, window.start(), window.end()));
            writes.add(new Write(micros, window.rate(), window.count() - previous, window.start() / 1_000));
        }
        else {
            throw new IllegalStateException("not a token bucket's or a fixed window's state: "
                    + new String(value, StandardCharsets.ISO_8859_1));
        }
        lastValue = value;
    }

    private void record(Event event) {
        if (event.permits() > 0) {
            grants.add(event);
        }
        else if (event.permits() < 0) {
            refunds.add(event);
        }
    }

    /** The grants, in the order Redis ran them (and so of their time). Read after {@link #close()}. */
    List<Event> grants() {
        return List.copyOf(grants);
    }

    /** Every write of the limiter's key by a script, in the order Redis ran them. Read after {@link #close()}. */
    List<Write> writes() {
        return List.copyOf(writes);
    }

    /** The writes that gave permits back. Read after {@link #close()}. */
    List<Event> refunds() {
        return List.copyOf(refunds);
    }

    /** The permits of all the grants. */
    static long permits(List<Event> grants) {
        return grants.stream().mapToLong(Event::permits).sum();
    }
}
