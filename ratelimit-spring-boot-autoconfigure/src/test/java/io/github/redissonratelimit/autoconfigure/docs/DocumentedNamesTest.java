package io.github.redissonratelimit.autoconfigure.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The user pages ({@link MarkdownFiles#userPages()}) name only attributes, enum constants, Actuator endpoints and
 * meters the code has ({@link DocumentedNames}); the {@code ratelimit.*} properties are checked by
 * {@code DocumentedPropertiesTest}.
 */
class DocumentedNamesTest {

    private final DocumentedNames names = new DocumentedNames(CodeNames.read());

    @Test
    void theUserPagesNameOnlyWhatTheCodeHas() {
        assertThat(MarkdownFiles.userPages()).extracting(MarkdownFiles::name).contains("README.md",
                "docs/observability.md").doesNotContain("docs/benchmarks.md", "docs/performance.md", "docs/releasing.md");
        List<String> problems = new ArrayList<>();
        for (Path page : MarkdownFiles.userPages()) {
            problems.addAll(names.check(MarkdownFiles.name(page), MarkdownFiles.lines(page)));
        }
        assertThat(problems).as("names in the user pages that the code does not have").isEmpty();
    }

    @Test
    void aStaleNameOfEachKindIsFound() {
        List<String> page = List.of(
                "```java",
                "@RateLimit(name = \"orders\", key = \"'o:' + #id\", rate = 5,",
                "        intervall = 60, mode = RateLimitMode.PER_USER)",
                "@RateLimit(rate = 5, algorithm = LEAKY_BUCKET, calendar = CalendarPeriod.DAY)",
                "```",
                "| attribute | meaning |",
                "| --- | --- |",
                "| `rate` | permits |",
                "| `retries` | gone |",
                "Pick `TOKEN_BUCKET` or `GOLDEN_RATIO`; `REDIS_URL` is read by the tests.",
                "GET /actuator/ratelimits/orders and /actuator/ratelimiters",
                "| meter | type |",
                "| --- | --- |",
                "| `ratelimit.requests` | counter |",
                "| `ratelimit.decisions` | counter |",
                "`ratelimit.requests{limit=\"a\", outcome=\"allowed\"}`, `ratelimit.requests{result=\"granted\"}`",
                "`rate(ratelimit_requests_total{result=\"allowed\"}[5m])`, `ratelimit_backend_latency_seconds_max`,",
                "`ratelimit_near_limit_total`, `ratelimit_decisions_total`",
                "```yaml",
                "ratelimit:",
                "  on-config-change: reset",
                "  policies:",
                "    search:",
                "      algorithm: leaky-bucket",
                "      mode: per-client",
                "```",
                "```properties",
                "ratelimit.defaults.mode=per-user",
                "ratelimit.key-style=hash-tag",
                "```");

        assertThat(names.check("page.md", page)).containsExactlyInAnyOrder(
                "page.md:2: intervall is no @RateLimit attribute",
                "page.md:2: mode = PER_USER is no constant of RateLimitMode",
                "page.md:3: RateLimitMode.PER_USER is no constant of RateLimitMode",
                "page.md:4: algorithm = LEAKY_BUCKET is no constant of RateLimitAlgorithm",
                "page.md:9: retries is no @RateLimit attribute",
                "page.md:10: GOLDEN_RATIO is no constant of a public enum",
                "page.md:11: /actuator/ratelimiters is no Actuator endpoint",
                "page.md:15: ratelimit.decisions is no meter",
                "page.md:16: ratelimit.requests has no tag outcome",
                "page.md:16: result=granted is no result of ratelimit.requests",
                "page.md:18: ratelimit_decisions_total is no meter as Prometheus names it",
                "page.md:24: ratelimit.policies.search.algorithm=leaky-bucket is none of [DEFAULT, SLIDING_WINDOW, "
                        + "TOKEN_BUCKET, FIXED_WINDOW, IN_FLIGHT]",
                "page.md:28: ratelimit.defaults.mode=per-user is none of [DEFAULT, OVERALL, PER_CLIENT]");
    }

    @Test
    void theCodeNamesAreReadFromTheClasses() {
        CodeNames code = CodeNames.read();
        assertThat(code.attributes).contains("name", "key", "rate", "algorithm", "burst", "calendar", "chargeWhen");
        assertThat(code.enums.get("RateLimitMode")).containsExactlyInAnyOrder("DEFAULT", "OVERALL", "PER_CLIENT");
        assertThat(code.enums).containsKeys("RateLimitAlgorithm", "CalendarPeriod", "BackendErrorPolicy", "Result",
                "CircuitState", "KeyStyle");
        assertThat(code.endpoints).contains("ratelimits", "health", "prometheus");
        assertThat(code.meterTags.get("ratelimit.requests")).containsExactlyInAnyOrder("limit", "result");
        assertThat(code.meterTags.get("ratelimit.near.limit")).containsExactly("limit");
        assertThat(code.meterTags.get("ratelimit.backend.failures")).containsExactly("exception");
        assertThat(code.meterTags).containsKeys("ratelimit.local.active", "ratelimit.backend.circuit.open");
        assertThat(names.meterOf("ratelimit_backend_latency_seconds_count")).isEqualTo("ratelimit.backend.latency");
        assertThat(names.meterOf("ratelimit_backend_circuit_open")).isEqualTo("ratelimit.backend.circuit.open");
    }
}
