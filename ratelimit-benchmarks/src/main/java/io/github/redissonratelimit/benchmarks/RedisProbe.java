package io.github.redissonratelimit.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.RespClient;

/** Reads what the harness reports about its Redis: command counters, CPU time and version. */
record RedisProbe(String host, int port) {

    CommandStats commandStats() {
        try (RespClient client = new RespClient(host, port)) {
            return CommandStats.read(client);
        }
    }

    /** The median of {@code count} sequential PINGs, in microseconds: one Redis round trip on this machine. */
    double pingMicros(int count) {
        try (RespClient client = new RespClient(host, port)) {
            java.util.List<Double> micros = new java.util.ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                long start = System.nanoTime();
                client.command("PING");
                micros.add((System.nanoTime() - start) / 1_000.0);
            }
            return Stats.median(micros);
        }
    }

    /** {@code MEMORY USAGE key SAMPLES 0}: the exact bytes of one key. */
    long memoryUsage(String key) {
        try (RespClient client = new RespClient(host, port)) {
            return ((Number) client.command("MEMORY", "USAGE", key, "SAMPLES", "0")).longValue();
        }
    }

    /** {@code ZCARD key}: the members of a sorted set. */
    long members(String key) {
        try (RespClient client = new RespClient(host, port)) {
            return ((Number) client.command("ZCARD", key)).longValue();
        }
    }

    /** Every key that matches the glob {@code pattern}, by {@code SCAN}. */
    java.util.List<String> keys(String pattern) {
        try (RespClient client = new RespClient(host, port)) {
            java.util.List<String> keys = new java.util.ArrayList<>();
            String cursor = "0";
            do {
                java.util.List<Object> reply = client.list("SCAN", cursor, "MATCH", pattern, "COUNT", "1000");
                cursor = reply.get(0).toString();
                ((java.util.List<?>) reply.get(1)).forEach(key -> keys.add(key.toString()));
            }
            while (!cursor.equals("0"));
            return keys;
        }
    }

    /** The length of the string {@code key} holds ({@code STRLEN}), or 0 when it holds another type. */
    long stringLength(String key) {
        try (RespClient client = new RespClient(host, port)) {
            return "string".equals(client.string("TYPE", key)) ? client.number("STRLEN", key) : 0;
        }
    }

    /** Redis's clock ({@code TIME}), in microseconds since the epoch. */
    long timeMicros() {
        try (RespClient client = new RespClient(host, port)) {
            java.util.List<Object> time = client.list("TIME");
            return Long.parseLong(time.get(0).toString()) * 1_000_000 + Long.parseLong(time.get(1).toString());
        }
    }

    String encoding(String key) {
        try (RespClient client = new RespClient(host, port)) {
            return client.string("OBJECT", "ENCODING", key);
        }
    }

    String version() {
        String version = info("server", "redis_version");
        return version == null ? "unknown" : version;
    }

    /**
     * CPU time redis-server has used so far, from /proc (so only when it runs on this machine), or -1.
     */
    long cpuNanos() {
        String pid = pid();
        if (pid == null) {
            return -1;
        }
        try (var tasks = Files.list(Path.of("/proc", pid, "task"))) {
            long total = 0;
            for (Path task : tasks.toList()) {
                // the first field of schedstat: nanoseconds spent on a CPU
                total += Long.parseLong(Files.readString(task.resolve("schedstat")).trim().split("\\s+")[0]);
            }
            return total;
        }
        catch (IOException | RuntimeException ex) {
            return -1;
        }
    }

    /** redis-server's process id, or null when it does not tell. */
    String pid() {
        return info("server", "process_id");
    }

    private String info(String section, String field) {
        try (RespClient client = new RespClient(host, port)) {
            for (String line : client.string("INFO", section).split("\r?\n")) {
                if (line.startsWith(field + ":")) {
                    return line.substring(field.length() + 1).trim();
                }
            }
            return null;
        }
    }

    MonitorSession monitor() {
        return MonitorSession.start(host, port);
    }
}
