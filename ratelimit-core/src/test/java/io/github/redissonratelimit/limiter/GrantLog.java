package io.github.redissonratelimit.limiter;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * Records, through {@code MONITOR}, every grant RRateLimiter's script makes on one OVERALL limiter (its
 * {@code ZADD} to {@code <name>:permits}, whose score is the grant's time stamp as the limiter keeps it)
 * and every acquire script call on it (its {@code ARGV[2]}, the calling client's clock). Redis stamps each
 * line with its own clock, so {@code server - stamp} is how long a call was in flight before it ran.
 * Independent of the client under test: what is recorded is what Redis executed.
 */
final class GrantLog implements AutoCloseable {

    /** One script call or grant: the client's stamp (ms) and when Redis ran it (us, Redis's clock). */
    record Event(long stampMillis, long serverMicros) {

        long inFlightMillis() {
            return serverMicros / 1_000 - stampMillis;
        }
    }

    private static final Pattern TOKEN = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");

    private final RespClient monitor;
    private final RedisEndpoint redis;
    private final String limiterName;
    private final String marker = "grant-log-end-" + UUID.randomUUID();
    private final List<Event> grants = new ArrayList<>();
    private final List<Event> calls = new ArrayList<>();
    private final CountDownLatch drained = new CountDownLatch(1);
    private volatile RuntimeException failure;

    private GrantLog(RedisEndpoint redis, String limiterName) {
        this.redis = redis;
        this.limiterName = limiterName;
        this.monitor = redis.cli();
        if (!"OK".equals(monitor.string("MONITOR"))) {
            throw new IllegalStateException("MONITOR refused");
        }
        Thread reader = new Thread(this::read, "grant-log");
        reader.setDaemon(true);
        reader.start();
    }

    static GrantLog start(RedisEndpoint redis, String limiterName) {
        return new GrantLog(redis, limiterName);
    }

    private void read() {
        try {
            while (true) {
                String line = String.valueOf(monitor.receive());
                if (line.contains(marker)) {
                    return;
                }
                parse(line);
            }
        }
        catch (RuntimeException ex) {
            failure = ex;
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
        long serverMicros = Long.parseLong(seconds[0]) * 1_000_000 + Long.parseLong(seconds[1]);
        boolean fromScript = line.substring(space, close).contains("lua");
        List<String> tokens = new ArrayList<>();
        Matcher matcher = TOKEN.matcher(line.substring(close + 2));
        while (matcher.find()) {
            tokens.add(matcher.group(1));
        }
        if (tokens.isEmpty()) {
            return;
        }
        String command = tokens.get(0).toLowerCase();
        if (fromScript && command.equals("zadd") && tokens.get(1).equals(limiterName + ":permits")) {
            grants.add(new Event(Long.parseLong(tokens.get(2)), serverMicros));
        }
        else if (!fromScript && (command.equals("evalsha") || command.equals("eval")) && tokens.size() >= 9
                && tokens.get(2).equals("5") && tokens.get(3).equals(limiterName)) {
            // the acquire script's one argument: "<permits> <stamp> <grant id>"
            calls.add(new Event(Long.parseLong(tokens.get(8).split(" ")[1]), serverMicros));
        }
    }

    /** Stops recording once every command sent so far has been read. */
    @Override
    public void close() {
        try (RespClient cli = redis.cli()) {
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

    /** The grants, ordered by their stamp. Read after {@link #close()}. */
    List<Event> grants() {
        List<Event> sorted = new ArrayList<>(grants);
        sorted.sort(Comparator.comparingLong(Event::stampMillis));
        return sorted;
    }

    /** Every acquire script call, in the order Redis ran them. Read after {@link #close()}. */
    List<Event> calls() {
        return List.copyOf(calls);
    }

    /** The most grants whose stamps fall in one window {@code [t, t + window)}. */
    static int maxInAnyWindow(List<Event> sortedGrants, long windowMillis) {
        int max = 0;
        int end = 0;
        for (int start = 0; start < sortedGrants.size(); start++) {
            long limit = sortedGrants.get(start).stampMillis() + windowMillis;
            while (end < sortedGrants.size() && sortedGrants.get(end).stampMillis() < limit) {
                end++;
            }
            max = Math.max(max, end - start);
        }
        return max;
    }

    /** The grants whose stamps fall in {@code [from, to)}. */
    static long countIn(List<Event> grants, long from, long to) {
        return grants.stream().filter(grant -> grant.stampMillis() >= from && grant.stampMillis() < to).count();
    }

    /** The grants with stamps in {@code [from, to)}. */
    static List<Event> between(List<Event> grants, long from, long to) {
        return grants.stream().filter(grant -> grant.stampMillis() >= from && grant.stampMillis() < to).toList();
    }
}
