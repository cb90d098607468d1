package io.github.redissonratelimit.redis;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redissonratelimit.test.redis.RedisDeployment;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * Records, through {@code MONITOR}, every grant the acquire script makes on one OVERALL limiter: its
 * {@code ZADD} to {@code <name>:permits}, whose score is the grant's time stamp (the end of its slice of Redis's own
 * clock, read by the script) and whose member carries the permits of its slice: a grant added to a slice's member
 * replaces it ({@code ZADD} of the new one, {@code ZREM} of the old), so what one script call granted is, by member
 * id, the permits it added minus those it removed.
 * Members of lost grants that the script holds on ({@code held:<id>}) are recorded apart: they stand for grants
 * made earlier, not new ones.
 * Independent of the client under test: what is recorded is what Redis executed.
 */
final class GrantLog implements AutoCloseable {

    /** One grant: its time stamp (ms, as stored), its permits, and when Redis ran it (us, Redis's clock). */
    record Event(long stampMillis, long permits, long serverMicros) {
    }

    private static final Pattern TOKEN = Pattern.compile("\"((?:[^\"\\\\]++|\\\\.)*+)\"");

    private final RespClient monitor;
    private final RedisDeployment redis;
    private final String limiterName;
    private final String marker = "grant-log-end-" + UUID.randomUUID();
    private final List<Event> grants = new ArrayList<>();
    private final List<Event> held = new ArrayList<>();
    /** What the script being run added to each member (net of what it removed), by id: reader thread only. */
    private final Map<String, long[]> added = new LinkedHashMap<>();
    private final CountDownLatch drained = new CountDownLatch(1);
    private volatile RuntimeException failure;

    private GrantLog(RedisDeployment redis, String limiterName) {
        this.redis = redis;
        this.limiterName = limiterName;
        this.monitor = redis.cliFor(limiterName);
        if (!"OK".equals(monitor.string("MONITOR"))) {
            throw new IllegalStateException("MONITOR refused");
        }
        Thread reader = new Thread(this::read, "grant-log");
        reader.setDaemon(true);
        reader.start();
    }

    /** Records on the master that holds the limiter's keys. */
    static GrantLog start(RedisDeployment redis, String limiterName) {
        return new GrantLog(redis, limiterName);
    }

    private void read() {
        try {
            while (true) {
                String line = String.valueOf(monitor.receive());
                if (line.contains(marker)) {
                    endOfScript();
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
        if (!line.substring(space, close).contains("lua")) {
            endOfScript(); // a new command from a client: the script before it is over
            return;
        }
        String[] seconds = line.substring(0, space).split("\\.");
        long serverMicros = Long.parseLong(seconds[0]) * 1_000_000 + Long.parseLong(seconds[1]);
        List<String> tokens = new ArrayList<>();
        Matcher matcher = TOKEN.matcher(line.substring(close + 2));
        while (matcher.find()) {
            tokens.add(matcher.group(1));
        }
        if (tokens.size() < 3 || !tokens.get(1).equals(limiterName + ":permits")) {
            return;
        }
        if (tokens.size() == 3 && tokens.get(0).equalsIgnoreCase("zrem")) {
            byte[] member = unescape(tokens.get(2));
            added.computeIfAbsent(id(member), id -> new long[3])[0] -= permits(member);
        }
        else if (tokens.size() == 4 && tokens.get(0).equalsIgnoreCase("zadd")) {
            byte[] member = unescape(tokens.get(3));
            long[] member0 = added.computeIfAbsent(id(member), id -> new long[3]);
            member0[0] += permits(member);
            member0[1] = Long.parseLong(tokens.get(2));
            member0[2] = serverMicros;
        }
    }

    /** Records what the script call that just ended granted: a member it added to (a refund or expiry takes away). */
    private void endOfScript() {
        added.forEach((id, member) -> {
            if (member[0] > 0) {
                (id.startsWith("held:") ? held : grants).add(new Event(member[1], member[0], member[2]));
            }
        });
        added.clear();
    }

    private static String id(byte[] member) {
        return new String(member, 1, member[0] & 0xff, StandardCharsets.ISO_8859_1);
    }

    private static long permits(byte[] member) {
        int idLength = member[0] & 0xff;
        long permits = 0;
        for (int i = 3; i >= 0; i--) {
            permits = (permits << 8) | (member[1 + idLength + i] & 0xff); // struct 'I', little-endian
        }
        return permits;
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

    /** The grants, ordered by their stamp. Read after {@link #close()}. */
    List<Event> grants() {
        List<Event> sorted = new ArrayList<>(grants);
        sorted.sort(Comparator.comparingLong(Event::stampMillis));
        return sorted;
    }

    /** The holds the script put on lost grants, in the order Redis made them. Read after {@link #close()}. */
    List<Event> held() {
        return List.copyOf(held);
    }

    /**
     * The most permits granted in one window {@code [t, t + window)}: a grant stamped {@code s} holds its
     * permits while the time is below {@code s + interval}, so with {@code window = interval} this is what
     * the limiter let out at once at its worst moment.
     */
    static long maxInAnyWindow(List<Event> sortedGrants, long windowMillis) {
        long max = 0;
        long inWindow = 0;
        int end = 0;
        for (int start = 0; start < sortedGrants.size(); start++) {
            long limit = sortedGrants.get(start).stampMillis() + windowMillis;
            while (end < sortedGrants.size() && sortedGrants.get(end).stampMillis() < limit) {
                inWindow += sortedGrants.get(end).permits();
                end++;
            }
            max = Math.max(max, inWindow);
            inWindow -= sortedGrants.get(start).permits();
        }
        return max;
    }

    /** The permits granted with stamps in {@code [from, to)}. */
    static long countIn(List<Event> grants, long from, long to) {
        return between(grants, from, to).stream().mapToLong(Event::permits).sum();
    }

    /** The grants with stamps in {@code [from, to)}. */
    static List<Event> between(List<Event> grants, long from, long to) {
        return grants.stream().filter(grant -> grant.stampMillis() >= from && grant.stampMillis() < to).toList();
    }
}
