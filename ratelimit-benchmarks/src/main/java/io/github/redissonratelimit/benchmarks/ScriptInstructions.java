package io.github.redissonratelimit.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.RedisBinary;
import io.github.redissonratelimit.test.redis.RedisServerProcess;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * The instructions redis-server executes per allowed decision of (a) RRateLimiter's {@code tryAcquireAsync()} and
 * (b) this project's Redis backend, on the Redis time table's load ({@link RedisTimeLoads}: {@link Users#COUNT} users,
 * a rate no run reaches, one decision after the other), counted with valgrind's callgrind: deterministic where
 * commandstats' {@code usec} (wall time) moves with whatever else the machine runs. Each contender runs twice on a
 * fresh redis-server under callgrind, {@link #FEW} and {@link #MANY} decisions after the same setup; the difference
 * of the totals over the difference of the calls is what one decision costs, the start, the setup and the stop
 * cancelling out. Both are paced alike by callgrind's slowdown, so both windows hold alike many grants.
 *
 * <p>Part of the harness's run when valgrind is installed; alone: {@code java -cp <harness class path>
 * io.github.redissonratelimit.benchmarks.ScriptInstructions <redis-server> [a|b]} (about a minute). {@code ratelimit-benchmarks/tools/script-instructions.sh} counts the
 * algorithms' own scripts the same way.
 */
final class ScriptInstructions {

    static final int FEW = 3_000;
    static final int MANY = 13_000;

    private ScriptInstructions() {
    }

    /**
     * Counts (a) and (b) into {@code results} with the redis-server the harness runs, when valgrind is installed and
     * the run is not a quick one (about a minute); else says why not.
     */
    static void count(Results results) throws Exception {
        if (results.settings.quick()) {
            results.instructionsSkipped = "not counted in a quick run";
            return;
        }
        if (!valgrindInstalled()) {
            results.instructionsSkipped = "not counted: valgrind is not installed";
            return;
        }
        Map<String, Long> counted = new LinkedHashMap<>();
        for (String contender : List.of("a", "b")) {
            counted.put(contender, perDecision(RedisBinary.path().toString(), contender));
        }
        results.instructions = counted;
    }

    private static boolean valgrindInstalled() {
        try {
            return new ProcessBuilder("valgrind", "--version").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor() == 0;
        }
        catch (IOException | InterruptedException notThere) {
            return false;
        }
    }

    /** Instructions per allowed decision of {@code contender} on the redis-server {@code binary}. */
    static long perDecision(String binary, String contender) throws Exception {
        return (totals(binary, contender, MANY) - totals(binary, contender, FEW)) / (MANY - FEW);
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            throw new IllegalArgumentException("usage: ScriptInstructions <redis-server binary> [a|b ...]");
        }
        List<String> contenders = args.length > 1 ? List.of(args).subList(1, args.length) : List.of("a", "b");
        for (String contender : contenders) {
            System.out.printf(Locale.ROOT, "(%s) %,d instructions per allowed decision%n", contender,
                    perDecision(args[0], contender));
        }
        System.exit(0);
    }

    /** callgrind's total for a redis-server that answered {@code calls} decisions of {@code contender}. */
    private static long totals(String binary, String contender, int calls) throws Exception {
        int port = RedisServerProcess.freePort();
        Path out = Files.createTempFile("callgrind", ".out");
        Process server = new ProcessBuilder("valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, binary,
                "--port", String.valueOf(port), "--save", "", "--appendonly", "no")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            awaitPing(port);
            Config config = new Config();
            config.useSingleServer().setAddress("redis://127.0.0.1:" + port).setTimeout(30_000)
                    .setPingConnectionInterval(0);
            RedissonClient redisson = Redisson.create(config);
            try {
                RedisTimeScenario.Load load = contender.equals("a") ? RedisTimeLoads.raw(redisson, true)
                        : RedisTimeLoads.ours(new RedissonRateLimitBackend(redisson), true);
                for (int call = 0; call < calls; call++) {
                    if (!load.decide().apply(call % Users.COUNT).toCompletableFuture().join()) {
                        throw new IllegalStateException("(" + contender + ") refused a decision");
                    }
                }
            }
            finally {
                redisson.shutdown();
            }
            try (RespClient cli = new RespClient("127.0.0.1", port)) {
                cli.command("SHUTDOWN", "NOSAVE");
            }
            catch (RuntimeException closed) {
                // the server closes the connection as it stops
            }
            server.waitFor();
            return total(out);
        }
        finally {
            server.destroyForcibly();
            Files.deleteIfExists(out);
        }
    }

    private static void awaitPing(int port) throws InterruptedException {
        for (int attempt = 0; attempt < 200; attempt++) {
            try (RespClient cli = new RespClient("127.0.0.1", port)) {
                if ("PONG".equals(String.valueOf(cli.command("PING")))) {
                    return;
                }
            }
            catch (RuntimeException notYet) {
                Thread.sleep(100);
            }
        }
        throw new IllegalStateException("redis-server under callgrind did not answer on port " + port);
    }

    private static long total(Path out) throws IOException {
        return Files.readAllLines(out).stream().filter(line -> line.startsWith("totals:")).findFirst()
                .map(line -> Long.parseLong(line.substring("totals:".length()).trim()))
                .orElseThrow(() -> new IllegalStateException("no totals in " + out));
    }
}
