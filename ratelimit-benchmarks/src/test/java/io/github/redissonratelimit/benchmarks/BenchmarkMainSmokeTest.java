package io.github.redissonratelimit.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The harness end to end in quick mode: every contender runs and the report and chart are written. */
class BenchmarkMainSmokeTest {

    @Test
    void quickRunWritesTheReportAndTheChart(@TempDir Path output) throws Exception {
        Path report = BenchmarkMain.run(Settings.parse("--quick", "--output", output.toString()));

        String markdown = Files.readString(report);
        assertThat(markdown).contains("quick mode", "| CPUs (`nproc`) |", "| Redis | 7.");
        for (String contender : new String[] { "(a)", "(b)", "(c)", "(d)", "(e)", "(f)", "(g)", "(h)" }) {
            assertThat(markdown).contains("| 1 | " + contender + " |", "| 4 | " + contender + " |");
        }
        assertThat(markdown).contains("(b)/(a) ≥ 1.0, ≥ 1.5 at 32 threads", "(b)/(c) ≥ 1.8", "(b)/(d) ≥ 1.4",
                "(g)/(b) ≥ 0.9", "Round trips per first-sight decision of (g): **1.00** ✔",
                "Round trips per two-limit call of (h), read as its p50 latency", "## Through HTTP",
                "| 1 | ", "| 16 | ", "| 64 | ", "## Memory per limiter", "| 10 | ", "| 1,000 | ", "## Redis time per decision",
                "Goal: Redis time per allowed decision of (b) ≤ (a)'s",
                "## Goals missed in this run, and why",
                "Script calls per allowed decision of (b): **1.0", "| on (default) |", "| off |",
                "`interceptorWithLocalRejection`", "`springProxy`", "## Algorithms",
                "### Redis time per decision, by algorithm", "| sliding window | ", "| token bucket | ",
                "| fixed window | ", "Goals: Redis time per token bucket decision ≤ 6 µs",
                "Goal: a token bucket ≤ 100 B per limiter", "](algorithms.svg)", "## In-flight limits",
                "### 32 callers on a limit of 8", "| traced | ", "Goal: at most 8 permits held at once, traced in Redis",
                "### Round trips per call", "Goals: script calls per admitted call of a few ms: **2.000** ✔",
                "leases the instances still renewed after the calls: **0** ✔",
                "### The caller's latency with and without the limit", "| an in-flight limit of 8 | ",
                "### Memory per in-flight limiter, by leases held", "| 129 | `:permits`, `:value` | ", "| 8 | ");
        assertThat(markdown).doesNotContain("NaN");

        String svg = Files.readString(output.resolve("benchmarks.svg"));
        assertThat(svg).startsWith("<svg").endsWith("</svg>\n").contains("(d) bucket4j", "(e) @RateLimit, no pipelining",
                "(g) @RateLimit, new user per call", "(h) @RateLimit, two limits");
        assertThat(svg.split("<rect ").length - 1).as("background, 16 bars, 8 legend boxes").isEqualTo(25);

        String algorithms = Files.readString(output.resolve("algorithms.svg"));
        assertThat(algorithms).startsWith("<svg").endsWith("</svg>\n").contains("sliding window: ",
                "token bucket (burst 10): ", "fixed window: ");
    }

    @Test
    void theAlgorithmsTheInFlightLimitsTheLeasesOrTheirHttpPartCanBeRunAlone() {
        assertThat(Settings.parse("--only", "algorithms").algorithmsOnly()).isTrue();
        assertThat(Settings.parse("--only", "leases").leasesOnly()).isTrue();
        assertThat(Settings.parse("--only", "leases").inFlightOnly()).isFalse();
        assertThat(Settings.parse("--quick").leasesOnly()).isFalse();
        assertThat(Settings.parse("--only", "algorithms").inFlightOnly()).isFalse();
        assertThat(Settings.parse("--only", "in-flight").inFlightOnly()).isTrue();
        assertThat(Settings.parse("--quick").algorithmsOnly()).isFalse();
        assertThat(Settings.parse("--quick").inFlightOnly()).isFalse();
        assertThat(Settings.parse("--only", "http").httpOnly()).isTrue();
        assertThat(Settings.parse("--only", "http").leasesOnly()).isFalse();
        assertThat(Settings.parse("--quick").httpOnly()).isFalse();
        assertThat(Settings.parse("--only", "http-cost").httpCostOnly()).isTrue();
        assertThat(Settings.parse("--only", "http-cost").httpOnly()).isFalse();
        assertThat(Settings.parse("--only", "http").httpCostOnly()).isFalse();
        assertThatIllegalArgumentException().isThrownBy(() -> Settings.parse("--only", "flood"))
                .withMessageContaining("Unknown section flood");
    }

    @Test
    void unknownArgumentsAreNamed() {
        assertThatIllegalArgumentException().isThrownBy(() -> Settings.parse("--fast"))
                .withMessageContaining("Unknown argument --fast");
    }
}
