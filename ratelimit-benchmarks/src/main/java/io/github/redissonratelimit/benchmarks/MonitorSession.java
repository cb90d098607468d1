package io.github.redissonratelimit.benchmarks;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

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

    private final MonitorStream<Commands> stream;

    private MonitorSession(String host, int port) {
        this.stream = MonitorStream.start(host, port, new Counts(), "redis-monitor");
    }

    static MonitorSession start(String host, int port) {
        return new MonitorSession(host, port);
    }

    /** Stops watching and returns what was seen since the start. */
    Commands stop() {
        return stream.stop(Duration.ofSeconds(30));
    }

    @Override
    public void close() {
        stream.close();
    }

    /** Counts the commands by name, sent and inside scripts, but a heartbeat's. */
    private static final class Counts implements MonitorStream.Lines<Commands> {

        private final Map<String, Long> sent = new TreeMap<>();
        private final Map<String, Long> inScripts = new TreeMap<>();
        private boolean heartbeat; // the last command a client sent, and so the script running, is a heartbeat

        @Override
        public void line(String line) {
            int source = line.indexOf('[');
            int sourceEnd = line.indexOf(']', source);
            int nameStart = line.indexOf('"', sourceEnd);
            int nameEnd = line.indexOf('"', nameStart + 1);
            if (source < 0 || sourceEnd < 0 || nameStart < 0 || nameEnd < 0) {
                return;
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

        @Override
        public Commands result() {
            return new Commands(sent, inScripts);
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
