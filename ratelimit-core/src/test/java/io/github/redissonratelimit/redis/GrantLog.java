package io.github.redissonratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redissonratelimit.test.redis.RedisDeployment;

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
final class GrantLog extends MonitorLog {

    /** One grant: its time stamp (ms, as stored), its permits, and when Redis ran it (us, Redis's clock). */
    record Event(long stampMillis, long permits, long serverMicros) {
    }

    private final List<Event> grants = new ArrayList<>();
    private final List<Event> held = new ArrayList<>();
    /** What the script being run added to each member (net of what it removed), by id: reader thread only. */
    private final Map<String, long[]> added = new LinkedHashMap<>();

    private GrantLog(RedisDeployment redis, String limiterName) {
        super(redis, limiterName);
    }

    /** Records on the master that holds the limiter's keys. */
    static GrantLog start(RedisDeployment redis, String limiterName) {
        GrantLog log = new GrantLog(redis, limiterName);
        log.startReading("grant-log");
        return log;
    }

    @Override
    void command(long serverMicros, boolean fromScript, List<String> tokens) {
        if (!fromScript) {
            endOfScript(); // a new command from a client: the script before it is over
            return;
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

    @Override
    void ended() {
        endOfScript();
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
