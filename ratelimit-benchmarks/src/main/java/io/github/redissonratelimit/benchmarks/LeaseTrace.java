package io.github.redissonratelimit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The leases of one in-flight limiter as Redis's scripts wrote them, read from {@code MONITOR}: each script call that
 * names the limiter, told apart by its arguments (a decision's argument starts with {@code i}, a give-back names a
 * receipt {@code r<lease id>}, a renewal ends with {@code renew}), and the commands its script ran, in the order Redis
 * ran them. A lease is held from the {@code ZADD} of its member {@code <lease id>:<permits>:<holder>} to its {@code ZREM} (or
 * the {@code ZREMRANGEBYSCORE} or {@code DEL} that dropped it): replayed in Redis's order, the permits of the leases in
 * the sorted set at each moment, which the scripts' own count (the {@code held} they write) can never exceed, since
 * they drop ended leases before they count. A lease's time held runs from its id (Redis's {@code TIME} in µs when the
 * script that granted it started) to the {@code MONITOR} timestamp of the command that removed it.
 */
final class LeaseTrace implements AutoCloseable {

    private final MonitorStream<Result> stream;

    private LeaseTrace(String host, int port, String limiter) {
        this.stream = MonitorStream.start(host, port, new Replay(limiter), "lease-trace");
    }

    /** Starts tracing the limiter whose keys contain {@code limiter}. */
    static LeaseTrace start(RedisProbe redis, String limiter) {
        return new LeaseTrace(redis.host(), redis.port(), limiter);
    }

    /** Stops tracing and returns what the scripts did since the start. */
    Result stop() {
        return stream.stop(Duration.ofSeconds(60));
    }

    @Override
    public void close() {
        stream.close();
    }

    /**
     * What the scripts did to the limiter.
     *
     * @param decisions script calls that decided (granted or refused)
     * @param grants leases taken
     * @param giveBacks script calls that gave a lease back, and {@code givenBack} those that found it held
     * @param renewals script calls that renewed a lease
     * @param mostInLeases the most permits in the leases key at once, replayed in Redis's order
     * @param mostWritten the most permits the scripts wrote as held
     * @param meanInLeases the permits in the leases key, averaged over the time from the first to the last command
     * @param leaseMicros each removed lease's time held, sorted
     * @param droppedUnended leases removed by {@code ZREMRANGEBYSCORE} or {@code DEL} (ended unrenewed, or reset)
     * @param stillHeld leases in the key when the trace stopped
     */
    record Result(long decisions, long grants, long giveBacks, long givenBack, long renewals, long mostInLeases,
            long mostWritten, double meanInLeases, long[] leaseMicros, long droppedUnended, long stillHeld) {
    }

    /** Replays {@code MONITOR} lines; only the reader thread calls it. */
    static final class Replay implements MonitorStream.Lines<Result> {

        private enum Call { DECISION, GIVE_BACK, RENEWAL }

        private record Lease(long idMicros, long permits) {
        }

        private final String limiter;
        private final Map<String, Lease> leases = new HashMap<>();
        private final Map<String, Double> ends = new HashMap<>();
        private final List<Long> leaseMicros = new ArrayList<>();
        private Call current;
        private boolean gaveBack;
        private long decisions;
        private long grants;
        private long giveBacks;
        private long givenBack;
        private long renewals;
        private long held;
        private long mostInLeases;
        private long mostWritten;
        private long dropped;
        private long firstMicros = -1;
        private long lastMicros;
        private double heldMicros;

        Replay(String limiter) {
            this.limiter = limiter;
        }

        @Override
        public void line(String line) {
            int source = line.indexOf(" [");
            int sourceEnd = line.indexOf("] ", source);
            if (source < 0 || sourceEnd < 0) {
                return;
            }
            long micros = micros(line.substring(0, source));
            List<String> words = words(line, sourceEnd + 2);
            if (words.isEmpty()) {
                return;
            }
            String command = words.get(0).toLowerCase();
            if (!line.substring(source, sourceEnd).endsWith(" lua")) {
                current = command.startsWith("eval") && words.stream().anyMatch(word -> word.contains(limiter))
                        ? classify(words) : null;
                if (current == Call.DECISION) {
                    decisions++;
                }
                else if (current == Call.GIVE_BACK) {
                    giveBacks++;
                }
                else if (current == Call.RENEWAL) {
                    renewals++;
                }
                gaveBack = false;
                return;
            }
            if (current == null || words.size() < 2 || !words.get(1).contains(limiter)) {
                return;
            }
            advance(micros);
            switch (command) {
                case "zadd" -> added(words.get(3), Double.parseDouble(words.get(2)));
                case "zrem" -> removed(words.get(2), micros);
                case "zremrangebyscore" -> removedTill(Double.parseDouble(words.get(3)), micros);
                case "del" -> removedTill(Double.POSITIVE_INFINITY, micros);
                case "set" -> written(words.get(2));
                default -> {
                }
            }
        }

        private static Call classify(List<String> words) {
            String last = words.get(words.size() - 1);
            if (last.equals("renew")) {
                return Call.RENEWAL;
            }
            if (words.stream().anyMatch(word -> word.startsWith("i "))) {
                return Call.DECISION;
            }
            return words.stream().anyMatch(word -> word.matches("r\\d+")) ? Call.GIVE_BACK : null;
        }

        private void advance(long micros) {
            if (firstMicros < 0) {
                firstMicros = micros;
            }
            else {
                heldMicros += (double) held * Math.max(0, micros - lastMicros);
            }
            lastMicros = micros;
        }

        private void added(String member, double end) {
            ends.put(member, end);
            if (current == Call.DECISION && !leases.containsKey(member)) {
                String[] parts = member.split(":", 3); // <id>:<permits>:<holder>
                Lease lease = new Lease(Long.parseLong(parts[0]), Long.parseLong(parts[1]));
                leases.put(member, lease);
                grants++;
                held += lease.permits();
                mostInLeases = Math.max(mostInLeases, held);
            }
        }

        private void removed(String member, long micros) {
            Lease lease = leases.remove(member);
            ends.remove(member);
            if (lease != null) {
                held -= lease.permits();
                leaseMicros.add(micros - lease.idMicros());
                if (current == Call.GIVE_BACK && !gaveBack) {
                    gaveBack = true;
                    givenBack++;
                }
            }
        }

        private void removedTill(double end, long micros) {
            for (Iterator<Map.Entry<String, Lease>> it = leases.entrySet().iterator(); it.hasNext();) {
                Map.Entry<String, Lease> lease = it.next();
                if (ends.getOrDefault(lease.getKey(), Double.NEGATIVE_INFINITY) <= end) {
                    it.remove();
                    ends.remove(lease.getKey());
                    held -= lease.getValue().permits();
                    leaseMicros.add(micros - lease.getValue().idMicros());
                    dropped++;
                }
            }
        }

        /** The free-permits key's value, {@code i<held>:<last id>:<rate>:<lease ms>}. */
        private void written(String value) {
            if (value.startsWith("i")) {
                mostWritten = Math.max(mostWritten, Long.parseLong(value.substring(1, value.indexOf(':'))));
            }
        }

        @Override
        public Result result() {
            long[] sorted = leaseMicros.stream().mapToLong(Long::longValue).sorted().toArray();
            double span = lastMicros - firstMicros;
            return new Result(decisions, grants, giveBacks, givenBack, renewals, mostInLeases, mostWritten,
                    span > 0 ? heldMicros / span : 0, sorted, dropped, leases.size());
        }

        /** {@code 1733412345.123456}: µs, exactly. */
        private static long micros(String stamp) {
            int dot = stamp.indexOf('.');
            return Long.parseLong(stamp.substring(0, dot)) * 1_000_000 + Long.parseLong(stamp.substring(dot + 1));
        }

        /** The quoted words of a {@code MONITOR} line from {@code from}, unescaped as Redis escapes them. */
        static List<String> words(String line, int from) {
            List<String> words = new ArrayList<>();
            StringBuilder word = null;
            for (int i = from; i < line.length(); i++) {
                char c = line.charAt(i);
                if (word == null) {
                    if (c == '"') {
                        word = new StringBuilder();
                    }
                }
                else if (c == '\\' && i + 1 < line.length()) {
                    char next = line.charAt(++i);
                    switch (next) {
                        case 'n' -> word.append('\n');
                        case 'r' -> word.append('\r');
                        case 't' -> word.append('\t');
                        case 'x' -> {
                            word.append((char) Integer.parseInt(line.substring(i + 1, i + 3), 16));
                            i += 2;
                        }
                        default -> word.append(next);
                    }
                }
                else if (c == '"') {
                    words.add(word.toString());
                    word = null;
                }
                else {
                    word.append(c);
                }
            }
            return words;
        }
    }
}
