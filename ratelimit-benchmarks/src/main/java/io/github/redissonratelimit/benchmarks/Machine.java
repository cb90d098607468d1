package io.github.redissonratelimit.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/** What the numbers were measured on. */
record Machine(int processors, String cpu, String java, String os, String date, String loadBefore) {

    static Machine describe() {
        return new Machine(Runtime.getRuntime().availableProcessors(), cpuModel(),
                System.getProperty("java.runtime.version") + " (" + System.getProperty("java.vm.name") + ", "
                        + System.getProperty("java.vm.vendor") + ")",
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
                ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME), loadAverage());
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(line -> line.startsWith("model name"))
                    .map(line -> line.substring(line.indexOf(':') + 1).trim())
                    .findFirst().orElse("unknown");
        }
        catch (IOException | RuntimeException ex) {
            return "unknown (" + ex.getMessage() + ")";
        }
    }

    /** 1, 5 and 15 minute load averages, as /proc/loadavg gives them. */
    static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return parts[0] + " " + parts[1] + " " + parts[2];
        }
        catch (IOException | RuntimeException ex) {
            return "unknown";
        }
    }
}
