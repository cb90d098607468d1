package io.github.redissonratelimit.test.redis;

import java.util.HashMap;
import java.util.Map;

/** The {@code calls} and {@code usec} of {@code INFO commandstats}, by lower-case command name. */
public final class CommandStats {

    private final Map<String, Long> calls;
    private final Map<String, Long> micros;

    private CommandStats(Map<String, Long> calls) {
        this(calls, Map.of());
    }

    private CommandStats(Map<String, Long> calls, Map<String, Long> micros) {
        this.calls = calls;
        this.micros = micros;
    }

    public static CommandStats read(RespClient client) {
        return parse(client.string("INFO", "commandstats"));
    }

    static CommandStats parse(String info) {
        Map<String, Long> calls = new HashMap<>();
        Map<String, Long> micros = new HashMap<>();
        for (String line : info.split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            String name = line.substring("cmdstat_".length(), line.indexOf(':')).toLowerCase();
            calls.put(name, field(line, "calls="));
            if (line.contains(",usec=")) {
                micros.put(name, field(line, ",usec="));
            }
        }
        return new CommandStats(calls, micros);
    }

    private static long field(String line, String label) {
        int start = line.indexOf(label) + label.length();
        int end = line.indexOf(',', start);
        return Long.parseLong(line.substring(start, end < 0 ? line.length() : end));
    }

    /**
     * The microseconds Redis spent running the command ({@code usec}: for a script call, the script with the
     * commands it ran, without reading the request and writing the reply).
     */
    public long micros(String command) {
        return micros.getOrDefault(command.toLowerCase(), 0L);
    }

    public long calls(String command) {
        return calls.getOrDefault(command.toLowerCase(), 0L);
    }

    /** The microseconds Redis spent running every command. */
    public long totalMicros() {
        return micros.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The commands that were called at least once. */
    public java.util.Set<String> commands() {
        return java.util.Set.copyOf(calls.keySet());
    }

    /** Every command but the ones a test or the client's housekeeping sends. */
    public long totalExcept(String... ignored) {
        long total = calls.values().stream().mapToLong(Long::longValue).sum();
        for (String command : ignored) {
            total -= calls(command);
        }
        return total;
    }

    /** The calls of this and {@code other} together (several nodes of a cluster). */
    public CommandStats plus(CommandStats other) {
        Map<String, Long> sum = new HashMap<>(calls);
        other.calls.forEach((command, count) -> sum.merge(command, count, Long::sum));
        Map<String, Long> microsSum = new HashMap<>(micros);
        other.micros.forEach((command, spent) -> microsSum.merge(command, spent, Long::sum));
        return new CommandStats(sum, microsSum);
    }

    /** The calls of every command but {@code commands} (ones a deployment's own machinery sends). */
    public CommandStats without(String... commands) {
        Map<String, Long> rest = new HashMap<>(calls);
        Map<String, Long> restMicros = new HashMap<>(micros);
        for (String command : commands) {
            rest.remove(command.toLowerCase());
            restMicros.remove(command.toLowerCase());
        }
        return new CommandStats(rest, restMicros);
    }

    /** Calls (and microseconds) of each command since {@code before}. */
    public CommandStats minus(CommandStats before) {
        Map<String, Long> delta = new HashMap<>();
        calls.forEach((command, count) -> {
            long difference = count - before.calls(command);
            if (difference != 0) {
                delta.put(command, difference);
            }
        });
        Map<String, Long> microsDelta = new HashMap<>();
        micros.forEach((command, spent) -> {
            long difference = spent - before.micros(command);
            if (difference != 0) {
                microsDelta.put(command, difference);
            }
        });
        return new CommandStats(delta, microsDelta);
    }

    @Override
    public String toString() {
        return calls.toString();
    }
}
