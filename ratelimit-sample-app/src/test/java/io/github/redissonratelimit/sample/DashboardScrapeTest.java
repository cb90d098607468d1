package io.github.redissonratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;

import io.github.redissonratelimit.outcome.RateLimitOutcome;

/**
 * The Grafana dashboard of docs/grafana queries what the sample exports: after a load, every metric its queries
 * name is in a scrape of {@code /actuator/prometheus}, with every label they match or group by, and every label
 * value they name. The {@code result} values that appear only at their first use (shadow and outage decisions)
 * are checked against the results the starter has.
 *
 * <p>Its own application (a longer deadline): a burst at a cold application on a busy machine must not send
 * decisions to the outage policy, whose state would outlive this test in a context shared with the sample's others.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "ratelimit.backend-timeout=5s")
@AutoConfigureObservability(tracing = false)
class DashboardScrapeTest {

    private static final Path DASHBOARD = Path.of("../docs/grafana/redisson-ratelimit.json");

    /** Labels Prometheus adds to every series it scrapes (the target's), or to a histogram's buckets. */
    private static final Set<String> ADDED_LABELS = Set.of("instance", "job");

    private static final Pattern SELECTOR = Pattern.compile("\\b(ratelimit_\\w+)(?:\\{([^}]*)\\})?");

    private static final Pattern MATCHER = Pattern.compile("(\\w+)\\s*(=~|!~|!=|=)\\s*\"([^\"]*)\"");

    private static final Pattern GROUPING = Pattern.compile("\\b(?:by|without)\\s*\\(([^)]*)\\)");

    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\((\\w+),\\s*(\\w+)\\)");

    private static final Pattern SERIES = Pattern.compile("^(\\w+)(?:\\{(.*)\\})?\\s+\\S+.*$");

    private static final Pattern SERIES_LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private final HttpClient http = HttpClient.newHttpClient();

    @Autowired
    private Environment environment;

    @Test
    void everyQueryOfTheDashboardNamesMetricsLabelsAndValuesOfALiveScrape() throws Exception {
        load();
        Map<String, Map<String, Set<String>>> scraped = scrape();
        assertThat(scraped.get("ratelimit_near_limit_total").get("limit")).as("the load reached the limits")
                .contains("order-submit");

        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        List<String> queries = new ArrayList<>(dashboard.findValuesAsText("expr"));
        dashboard.path("templating").path("list").forEach(variable -> {
            if (variable.path("query").has("query")) {
                queries.add(variable.path("query").path("query").asText());
            }
        });
        assertThat(queries).hasSizeGreaterThanOrEqualTo(10);
        List<String> problems = new ArrayList<>();
        for (String query : queries) {
            problems.addAll(problems(query, scraped));
        }
        assertThat(problems).as("queries of the dashboard against a scrape of the sample").isEmpty();
    }

    @Test
    void theDashboardImportsAsItIsWithTheDataSourceAsAVariable() throws Exception {
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        assertThat(dashboard.has("__inputs")).as("no import-time inputs to fill").isFalse();
        assertThat(dashboard.path("templating").path("list").findValuesAsText("type")).contains("datasource");
        assertThat(dashboard.path("uid").asText()).isNotBlank();
        for (JsonNode panel : dashboard.path("panels")) {
            if (!panel.path("type").asText().equals("row")) {
                assertThat(panel.path("datasource").path("uid").asText()).as(panel.path("title").asText())
                        .isEqualTo("${datasource}");
                assertThat(panel.path("targets")).as(panel.path("title").asText()).isNotEmpty();
            }
        }
    }

    /** What {@code query} names that the scrape does not have. */
    private static List<String> problems(String query, Map<String, Map<String, Set<String>>> scraped) {
        List<String> problems = new ArrayList<>();
        Set<String> results = Arrays.stream(RateLimitOutcome.Result.values()).map(RateLimitOutcome.Result::tag)
                .collect(Collectors.toSet());
        Set<String> labelsOfQuery = new HashSet<>(ADDED_LABELS);
        Matcher selector = SELECTOR.matcher(query);
        while (selector.find()) {
            Map<String, Set<String>> labels = scraped.get(selector.group(1));
            if (labels == null) {
                problems.add(selector.group(1) + " is not scraped: " + query);
                continue;
            }
            labelsOfQuery.addAll(labels.keySet());
            Matcher matcher = MATCHER.matcher(selector.group(2) == null ? "" : selector.group(2));
            while (matcher.find()) {
                String label = matcher.group(1);
                if (!labels.containsKey(label)) {
                    problems.add(selector.group(1) + " has no label " + label + ": " + query);
                    continue;
                }
                for (String value : matcher.group(3).split("\\|")) {
                    boolean literal = value.matches("[\\w-]+");
                    Set<String> known = label.equals("result") ? results : labels.get(label);
                    if (literal && !known.contains(value)) {
                        problems.add(selector.group(1) + " has no " + label + "=" + value + ": " + query);
                    }
                }
            }
        }
        Matcher grouping = GROUPING.matcher(query);
        while (grouping.find()) {
            for (String label : grouping.group(1).split(",")) {
                if (!label.isBlank() && !labelsOfQuery.contains(label.strip())) {
                    problems.add("no metric of the query has the label " + label.strip() + ": " + query);
                }
            }
        }
        Matcher labelValues = LABEL_VALUES.matcher(query);
        while (labelValues.find()) {
            Map<String, Set<String>> labels = scraped.get(labelValues.group(1));
            if (labels == null || !labels.containsKey(labelValues.group(2))) {
                problems.add(labelValues.group(1) + " has no label " + labelValues.group(2) + ": " + query);
            }
        }
        return problems;
    }

    /** Calls every limited endpoint of the sample past its limits, from 4 callers at once, with users of its own. */
    private void load() {
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int user = 0; user < 4; user++) {
            String id = "dashboard-" + user;
            for (int i = 0; i < 7; i++) {
                calls.add(send("POST", "/orders/submit?userId=" + id));
                calls.add(send("GET", "/orders/search?userId=" + id));
            }
            for (int i = 0; i < 4; i++) {
                calls.add(send("GET", "/orders/export?userId=" + id));
                calls.add(send("POST", "/login?user=" + id + "&password=wrong"));
            }
        }
        List<Integer> statuses = calls.stream().map(CompletableFuture::join).map(HttpResponse::statusCode).toList();
        assertThat(statuses).contains(200, 429);
    }

    private CompletableFuture<HttpResponse<String>> send(String method, String path) {
        URI uri = URI.create("http://localhost:" + environment.getProperty("local.server.port") + path);
        return http.sendAsync(HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Each series name of the scrape with the values of each of its labels. */
    private Map<String, Map<String, Set<String>>> scrape() {
        String body = send("GET", "/actuator/prometheus").join().body();
        Map<String, Map<String, Set<String>>> series = new HashMap<>();
        for (String line : body.lines().toList()) {
            Matcher matcher = SERIES.matcher(line);
            if (line.startsWith("#") || !matcher.matches()) {
                continue;
            }
            Map<String, Set<String>> labels = series.computeIfAbsent(matcher.group(1), name -> new HashMap<>());
            Matcher label = SERIES_LABEL.matcher(matcher.group(2) == null ? "" : matcher.group(2));
            while (label.find()) {
                labels.computeIfAbsent(label.group(1), name -> new HashSet<>()).add(label.group(2));
            }
        }
        return series;
    }
}
