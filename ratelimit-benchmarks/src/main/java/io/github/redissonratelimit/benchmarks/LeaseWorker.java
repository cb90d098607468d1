package io.github.redissonratelimit.benchmarks;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import org.redisson.api.RedissonClient;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The second JVM of the section on leases, started by {@link LeaseJvm}: an application of its own on the harness's
 * Redis (port in {@code args[0]}), which runs the loads it is told on its standard input, one a line,
 * {@code run <decision> <threads> <nanos> <per second> <start at> <log file> <log origin µs> <log span µs>}, answering each
 * with {@code done <decisions> <allowed> <errors> <elapsed ns>}; {@code exit} ends it.
 */
public final class LeaseWorker {

    static final String READY = "ready";

    private LeaseWorker() {
    }

    public static void main(String[] args) throws Exception {
        RedissonClient redisson = BenchmarkMain.newRedisson(Integer.parseInt(args[0]));
        ConfigurableApplicationContext app = BenchmarkApplication.start(redisson, LeaseDeciders.PROPERTIES);
        LeaseDeciders deciders = new LeaseDeciders(app, redisson);
        System.out.println(READY);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.equals("exit")) {
            String[] words = line.split(" ");
            long origin = Long.parseLong(words[7]);
            long span = Long.parseLong(words[8]);
            try (SpendLog log = SpendLog.create(Path.of(words[6]), origin, span);
                    ReceiptLog receipts = ReceiptLog.forRun(Path.of(words[6]), origin, span, true)) {
                deciders.recordTo(receipts);
                LeaseLoad.Result result = LeaseLoad.run(deciders.decider(words[1]), Integer.parseInt(words[2]),
                        Long.parseLong(words[5]), Long.parseLong(words[3]), Long.parseLong(words[4]), log);
                System.out.println("done " + result.line());
            }
            catch (RuntimeException ex) {
                System.out.println("error " + ex);
            }
            finally {
                deciders.recordTo(null);
            }
        }
        app.close();
        redisson.shutdown();
        System.exit(0);
    }
}
