package io.github.redissonratelimit.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An algorithm is one class registered in {@link Algorithms}: no main source of any module outside the algorithm and
 * annotation packages names a particular algorithm to decide something (a {@code case}, a comparison, a type test),
 * so that the decision stack, the actuator, routes and the gateway work with every algorithm alike, and adding one
 * touches its class, its script and its registration only.
 */
class AlgorithmsInOnePlaceTest {

    /** Names an algorithm to tell it apart: its constant, a case of it, or a test of its class. */
    private static final Pattern NAMING = Pattern.compile("RateLimitAlgorithm\\.(TOKEN_BUCKET|FIXED_WINDOW|SLIDING_WINDOW)"
            + "|case (TOKEN_BUCKET|FIXED_WINDOW|SLIDING_WINDOW)\\b|instanceof (TokenBucket|FixedWindow|SlidingWindow)\\b"
            + "|\\((TokenBucket|FixedWindow|SlidingWindow)\\) ");

    /**
     * Where naming one is the point: Spring Cloud Gateway's {@code redis-rate-limiter.*} arguments mean a token bucket;
     * the benchmarks compare the algorithms by name.
     */
    private static final List<String> ALLOWED = List.of("io/github/redissonratelimit/algorithm/",
            "io/github/redissonratelimit/annotation/", "gateway/RedisRateLimiterArguments.java",
            "ratelimit-benchmarks/");

    @Test
    void noMainSourceOutsideTheAlgorithmsNamesOne(@TempDir Path planted) throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent();
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root, 12)) {
            files.filter(file -> file.toString().endsWith(".java") && file.toString().contains("/src/main/java/"))
                    .filter(file -> ALLOWED.stream().noneMatch(allowed -> file.toString().contains(allowed)))
                    .forEach(file -> found.addAll(namings(root, file)));
        }
        assertThat(found).as("main sources that name an algorithm outside its class and the registry").isEmpty();
        Path switching = Files.writeString(planted.resolve("Switching.java"), "        return switch (type) {\n"
                + "            case TOKEN_BUCKET -> burst;\n        if (algorithm instanceof FixedWindow window) {\n");
        assertThat(namings(planted, switching)).as("the check finds a planted switch").hasSize(2);
    }

    private static List<String> namings(Path root, Path file) {
        try {
            List<String> found = new ArrayList<>();
            List<String> lines = Files.readAllLines(file);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i).strip();
                Matcher matcher = NAMING.matcher(line);
                if (!line.startsWith("*") && !line.startsWith("/") && matcher.find()) {
                    found.add(root.relativize(file) + ":" + (i + 1) + ": " + line);
                }
            }
            return found;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
