package io.github.redissonratelimit.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * How long and how often the harness measures; {@code only} the one section to run ({@code --only algorithms}: the
 * sections on the limiting algorithms, {@link AlgorithmScenario}; {@code --only in-flight}: the section on in-flight
 * limits, {@link InFlightScenario}; {@code --only http}: the HTTP endpoints with a lease, {@link HttpScenario#runAlone}),
 * null for every section.
 */
record Settings(boolean quick, int rounds, Duration run, Duration warmup, List<Integer> threadCounts,
        Duration flood, int monitoredDecisions, Path outputDirectory, String only) {

    static final String ALGORITHMS = "algorithms";
    static final String IN_FLIGHT = "in-flight";
    static final String LEASES = "leases";
    static final String HTTP = "http";
    static final String HTTP_COST = "http-cost";

    boolean algorithmsOnly() {
        return ALGORITHMS.equals(only);
    }

    boolean inFlightOnly() {
        return IN_FLIGHT.equals(only);
    }

    boolean leasesOnly() {
        return LEASES.equals(only);
    }

    boolean httpOnly() {
        return HTTP.equals(only);
    }

    /** {@code --only http-cost}: what the limiter costs the server per HTTP request ({@link HttpCost}). */
    boolean httpCostOnly() {
        return HTTP_COST.equals(only);
    }

    /** Rounds of the Redis time scenario ({@link RedisTimeScenario}): as many as the throughput runs, at most 8. */
    int redisTimeRounds() {
        return Math.min(rounds, 8);
    }

    /** Rounds of each step of {@link RedisSaturation}. */
    int saturationRounds() {
        return quick ? 1 : 3;
    }

    /** How long each load of the Redis time scenario runs per round. */
    Duration redisTimeRun() {
        return quick ? Duration.ofMillis(200) : Duration.ofMillis(800);
    }

    static Settings parse(String... args) {
        boolean quick = false;
        Path output = Path.of("docs");
        Integer rounds = null;
        Duration run = null;
        String only = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--output" -> output = Path.of(value(args, ++i, "--output"));
                case "--rounds" -> rounds = Integer.parseInt(value(args, ++i, "--rounds"));
                case "--seconds" -> run = Duration.ofMillis((long) (Double.parseDouble(value(args, ++i, "--seconds")) * 1000));
                case "--only" -> only = section(value(args, ++i, "--only"));
                default -> throw new IllegalArgumentException("Unknown argument " + args[i]
                        + "; expected --quick, --output <dir>, --rounds <n>, --seconds <per run>, --only algorithms|in-flight|leases|http|http-cost");
            }
        }
        if (quick) {
            return new Settings(true, rounds == null ? 1 : rounds, run == null ? Duration.ofMillis(300) : run,
                    Duration.ofMillis(300), List.of(1, 4), Duration.ofMillis(1_500), 20, output, only);
        }
        return new Settings(false, rounds == null ? 20 : rounds, run == null ? Duration.ofMillis(800) : run,
                Duration.ofSeconds(4), List.of(1, 8, 32), Duration.ofSeconds(10), 200, output, only);
    }

    private static String section(String section) {
        if (!List.of(ALGORITHMS, IN_FLIGHT, LEASES, HTTP, HTTP_COST).contains(section)) {
            throw new IllegalArgumentException("Unknown section " + section + " for --only; expected " + ALGORITHMS
                    + ", " + IN_FLIGHT + ", " + LEASES + ", " + HTTP + " or " + HTTP_COST);
        }
        return section;
    }

    private static String value(String[] args, int index, String option) {
        if (index >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[index];
    }
}
