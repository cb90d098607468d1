package io.github.redissonratelimit.benchmarks;

import java.util.Arrays;
import java.util.Locale;

import org.redisson.api.RedissonClient;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.redissonratelimit.test.redis.RedisServerProcess;

/**
 * The JVM's CPU time per decision of (b) (256 known users) or (g) (a new user on every call), one thread, on a
 * redis-server of its own, under the application properties given: for finding which part of the client a cost
 * belongs to by turning parts off, one JVM per setting. Two phases of the given seconds; the second is reported.
 *
 * <p>{@code java -cp <harness class path> io.github.redissonratelimit.benchmarks.ClientCpuProbe b|g <seconds>
 * [property=value ...]}, e.g. {@code g 8 ratelimit.on-backend-error=allow}.
 */
final class ClientCpuProbe {

    private ClientCpuProbe() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2 || !args[0].matches("[bg]")) {
            throw new IllegalArgumentException("usage: ClientCpuProbe b|g <seconds> [property=value ...]");
        }
        boolean newUsers = args[0].equals("g");
        long nanos = Long.parseLong(args[1]) * 1_000_000_000L;
        try (RedisServerProcess server = RedisServerProcess.startOnFreePort()) {
            RedissonClient redisson = BenchmarkMain.newRedisson(server.port());
            try (ConfigurableApplicationContext app = BenchmarkApplication.start(redisson,
                    Arrays.copyOfRange(args, 2, args.length))) {
                AnnotatedService service = app.getBean(AnnotatedService.class);
                long user = 0;
                for (int phase = 1; phase <= 2; phase++) {
                    long cpuBefore = BenchmarkMain.clientCpuNanos();
                    long start = System.nanoTime();
                    long decisions = 0;
                    while (System.nanoTime() - start < nanos) {
                        service.decide(newUsers ? "new-" + user++ : Users.id((int) (user++ % Users.COUNT)));
                        decisions++;
                    }
                    long took = System.nanoTime() - start;
                    long cpu = BenchmarkMain.clientCpuNanos() - cpuBefore;
                    if (phase == 2) {
                        System.out.printf(Locale.ROOT, "(%s) %s: %d decisions, %.1f µs each, JVM CPU %.1f µs each%n",
                                args[0], String.join(" ", Arrays.copyOfRange(args, 2, args.length)), decisions,
                                took / 1000.0 / decisions, cpu / 1000.0 / decisions);
                    }
                }
            }
            finally {
                redisson.shutdown();
            }
        }
        System.exit(0); // Redisson's non-daemon threads
    }
}
