package io.github.redissonratelimit.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@link LeaseWorker} in a JVM of its own, a child process of the harness on the same classpath: the second
 * instance of the section on leases. {@link #kill()} ends it with SIGKILL ({@code kill -9}).
 */
final class LeaseJvm implements AutoCloseable {

    private final Process process;
    private final PrintWriter commands;
    private final BufferedReader answers;

    private LeaseJvm(Process process) {
        this.process = process;
        this.commands = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        this.answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    static LeaseJvm start(int redisPort) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(List.of(java, "-Xms512m", "-Xmx512m", "-XX:+UseParallelGC", "-cp",
                System.getProperty("java.class.path"), LeaseWorker.class.getName(), String.valueOf(redisPort)))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        LeaseJvm jvm = new LeaseJvm(process);
        jvm.await(LeaseWorker.READY);
        return jvm;
    }

    /** Starts a load there (see {@link LeaseWorker}); {@link #result()} waits for its answer. */
    void run(String decision, int threads, long nanos, long perSecond, long startAt, Path log, long logOriginMicros,
            long logSpanMicros) {
        commands.println(String.join(" ", "run", decision, String.valueOf(threads), String.valueOf(nanos),
                String.valueOf(perSecond), String.valueOf(startAt), log.toString(), String.valueOf(logOriginMicros),
                String.valueOf(logSpanMicros)));
    }

    LeaseLoad.Result result() {
        return LeaseLoad.Result.parse(await("done "));
    }

    /** SIGKILL: no refund, no shutdown hook; waits for the process to be gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    private String await(String prefix) {
        try {
            String line;
            while ((line = answers.readLine()) != null) {
                if (line.startsWith(prefix)) {
                    return line.substring(prefix.length());
                }
                if (line.startsWith("error ")) {
                    throw new IllegalStateException("The second JVM failed: " + line.substring(6));
                }
            }
            throw new IllegalStateException("The second JVM ended before answering");
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            commands.println("exit");
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
