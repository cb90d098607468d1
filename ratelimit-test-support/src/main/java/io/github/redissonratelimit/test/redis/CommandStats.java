package io.github.redissonratelimit.test.redis;

import java.util.HashMap;
import java.util.Map;

/** The {@code calls} of {@code INFO commandstats}, by lower-case command name. */
public final class CommandStats {

    private final Map<String, Long> calls;

    private CommandStats(Map<String, Long> calls) {
        this.calls = calls;
    }

    public static CommandStats read(RespClient client) {
        return parse(client.string("INFO", "commandstats"));
    }

    static CommandStats parse(String info) {
        Map<String, Long> calls = new HashMap<>();
        for (String line : info.split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            String name = line.substring("cmdstat_".length(), line.indexOf(':'));
            int start = line.indexOf("calls=") + "calls=".length();
            int end = line.indexOf(',', start);
            calls.put(name.toLowerCase(), Long.parseLong(line.substring(start, end < 0 ? line.length() : end)));
        }
        return new CommandStats(calls);
    }

    public long calls(String command) {
        return calls.getOrDefault(command.toLowerCase(), 0L);
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
        return new CommandStats(sum);
    }

    /** The calls of every command but {@code commands} (ones a deployment's own machinery sends). */
    public CommandStats without(String... commands) {
        Map<String, Long> rest = new HashMap<>(calls);
        for (String command : commands) {
            rest.remove(command.toLowerCase());
        }
        return new CommandStats(rest);
    }

    /** Calls of each command since {@code before}. */
    public CommandStats minus(CommandStats before) {
        Map<String, Long> delta = new HashMap<>();
        calls.forEach((command, count) -> {
            long difference = count - before.calls(command);
            if (difference != 0) {
                delta.put(command, difference);
            }
        });
        return new CommandStats(delta);
    }

    @Override
    public String toString() {
        return calls.toString();
    }
}
