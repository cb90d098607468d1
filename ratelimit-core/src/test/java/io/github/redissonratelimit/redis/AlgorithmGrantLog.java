package io.github.redissonratelimit.redis;

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
 * <li>a token bucket's {@code g<tat>:<rate>:<interval>:<burst>}: the tat moves {@code permits * interval / rate}
 * past the later of the previous tat and the grant's time, so the permits granted are that distance in emission
 * intervals (rounded: the stamp's lag is far below one emission interval);</li>
 * <li>a fixed window's {@code f<count>:<start>:<end>:<rate>}: the permits are the count minus the count written
 * before in the same window (none when the window is another one, or over).</li>
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

    private static final Pattern BUCKET = Pattern.compile("g([\\d.e+]+):(\\d+):(\\d+):(\\d+)");
    private static final Pattern WINDOW = Pattern.compile("f(\\d+):(\\d+):(\\d+):(\\d+)");

    private final String valueKey;
    private final List<Event> grants = new ArrayList<>();
    private final List<Event> refunds = new ArrayList<>();
    /** The stamp of the last TIME a script ran, and the value it last wrote: reader thread only. */
    private long lastTimeMicros;
    private String lastValue;

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
            written(tokens.get(2), lastTimeMicros);
        }
        else if (tokens.size() >= 2 && tokens.get(0).equalsIgnoreCase("del")) {
            throw new IllegalStateException("the log does not follow deleted keys: " + tokens);
        }
    }

    private void written(String value, long micros) {
        Matcher bucket = BUCKET.matcher(value);
        Matcher window = WINDOW.matcher(value);
        if (bucket.matches()) {
            double emission = Double.parseDouble(bucket.group(3)) * 1_000 / Long.parseLong(bucket.group(2));
            Matcher before = lastValue == null ? null : BUCKET.matcher(lastValue);
            double previous = before != null && before.matches() ? Double.parseDouble(before.group(1)) : 0;
            long permits = Math.round((Double.parseDouble(bucket.group(1)) - Math.max(previous, micros)) / emission);
            record(new Event(micros, permits, 0, 0));
        }
        else if (window.matches()) {
            long start = Long.parseLong(window.group(2));
            long end = Long.parseLong(window.group(3));
            Matcher before = lastValue == null ? null : WINDOW.matcher(lastValue);
            boolean sameWindow = before != null && before.matches() && Long.parseLong(before.group(2)) == start
                    && Long.parseLong(before.group(3)) == end && micros / 1_000 < end;
            long previous = sameWindow ? Long.parseLong(before.group(1)) : 0;
            record(new Event(micros, Long.parseLong(window.group(1)) - previous, start, end));
        }
        else {
            throw new IllegalStateException("not a token bucket's or a fixed window's state: " + value);
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

    /** The writes that gave permits back. Read after {@link #close()}. */
    List<Event> refunds() {
        return List.copyOf(refunds);
    }

    /** The permits of all the grants. */
    static long permits(List<Event> grants) {
        return grants.stream().mapToLong(Event::permits).sum();
    }
}
