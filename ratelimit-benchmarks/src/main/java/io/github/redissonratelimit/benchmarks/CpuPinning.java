package io.github.redissonratelimit.benchmarks;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Gives redis-server a CPU of its own while Redis's time per decision is measured: INFO commandstats {@code usec} is
 * wall time, so a redis-server that shares its CPU with the harness's callers can count the time it waits for the CPU
 * mid-script as the script's. (On the 2-CPU machine of the recorded runs it did not change the figures: a script
 * returning 1 took 2.5 µs pinned and unpinned; what moves them between rounds lies elsewhere.) redis-server is pinned to the last CPU and this JVM's threads to the others ({@code taskset}), and both are given every CPU back
 * on {@link #close}. Where that cannot be done (one CPU, no {@code taskset}, Redis not on this machine), nothing
 * changes and {@link #description} says so.
 */
final class CpuPinning implements AutoCloseable {

    private final String redisPid;
    private final String allCpus;
    private final String description;
    private final boolean pinned;

    private CpuPinning(String redisPid, String allCpus, String description, boolean pinned) {
        this.redisPid = redisPid;
        this.allCpus = allCpus;
        this.description = description;
        this.pinned = pinned;
    }

    /** Pins redis-server (of {@code redis}) to the last CPU and this JVM to the others, when it can. */
    static CpuPinning redisAlone(RedisProbe redis) {
        int cpus = Runtime.getRuntime().availableProcessors();
        String pid = redis.pid();
        if (cpus < 2 || pid == null) {
            return new CpuPinning(pid, "", "not pinned (" + (cpus < 2 ? "one CPU" : "redis-server's process unknown")
                    + ")", false);
        }
        String last = String.valueOf(cpus - 1);
        String others = cpus == 2 ? "0" : "0-" + (cpus - 2);
        if (!taskset(last, pid) || !taskset(others, String.valueOf(ProcessHandle.current().pid()))) {
            taskset("0-" + last, pid);
            return new CpuPinning(pid, "", "not pinned (taskset failed)", false);
        }
        return new CpuPinning(pid, "0-" + last, "redis-server pinned to CPU " + last + ", the harness to CPU " + others, true);
    }

    /** How the run was placed on the CPUs, for the report. */
    String description() {
        return description;
    }

    @Override
    public void close() {
        if (pinned) {
            taskset(allCpus, String.valueOf(ProcessHandle.current().pid()));
            taskset(allCpus, redisPid);
        }
    }

    /** Sets the CPUs of every thread of process {@code pid}; whether taskset succeeded. */
    private static boolean taskset(String cpus, String pid) {
        try {
            Process process = new ProcessBuilder(List.of("taskset", "-a", "-p", "-c", cpus, pid))
                    .redirectErrorStream(true).start();
            process.getInputStream().readAllBytes();
            return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0;
        }
        catch (IOException ex) {
            return false;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
