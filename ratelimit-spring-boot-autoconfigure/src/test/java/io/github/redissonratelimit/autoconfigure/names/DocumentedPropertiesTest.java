package io.github.redissonratelimit.autoconfigure.names;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;

import io.github.redissonratelimit.autoconfigure.RateLimitProperties;
import io.github.redissonratelimit.autoconfigure.docs.MarkdownFiles;

/**
 * The {@code ratelimit.*} properties the documentation names exist, and docs/configuration.md documents every one of
 * them. The properties are those of the configuration metadata (generated from {@link RateLimitProperties}, and the
 * additional file); a map's entries ({@code ratelimit.policies.<name>.rate}) are the properties of its value class,
 * written with any key, a placeholder such as {@code <name>} or {@code *}. A name may be a group
 * ({@code ratelimit.local-fallback}) or end in a glob ({@code ratelimit.headers.*-header}), which must match one.
 * Meter names ({@code ratelimit.requests}, declared in the metrics classes) are not properties.
 */
class DocumentedPropertiesTest {

    private static final Path GENERATED = Path.of("target/classes/META-INF/spring-configuration-metadata.json");

    private static final Path ADDITIONAL = Path.of("src/main/resources/META-INF/additional-spring-configuration-metadata.json");

    /** A property name in prose or code: not part of a longer name such as a package (io.github.redissonratelimit.x). */
    private static final Pattern PROPERTY = Pattern.compile(
            "(?<![\\w.$/-])ratelimit((?:\\.(?:<[\\w-]+>|[\\w*-]+)|\\[[^\\]\\s]+\\])+)");

    private static final Pattern PROPERTIES_LINE = Pattern.compile("^\\s*([^#!\\s=:][^\\s=:]*)\\s*[=:].*$");

    private static final Pattern METER_NAME = Pattern.compile("\"(ratelimit\\.[\\w.]+)\"");

    /**
     * The misspellings the docs show on purpose, to explain the startup check that refuses them; each must stay a
     * non-property (asserted below), so this list cannot hide a real name that went missing.
     */
    private static final Set<String> MISSPELT_ON_PURPOSE = Set.of("ratelimit.polices.x.rate",
            "ratelimit.policies.x.rat", "ratelimit.polices.orders.rate");

    private final List<List<String>> properties = properties();

    @Test
    void theMisspellingsTheDocsShowAreNoProperties() {
        for (String name : MISSPELT_ON_PURPOSE) {
            assertThat(properties.stream().noneMatch(known -> names(elements(name), known, true)))
                    .as(name + " is shown as a misspelling but is a property").isTrue();
        }
    }

    @Test
    void everyPropertyTheDocsNameExists() {
        Set<String> meters = meterNames();
        List<String> failures = new ArrayList<>();
        for (Path file : MarkdownFiles.userDocs()) {
            List<String> lines = MarkdownFiles.lines(file);
            for (int i = 0; i < lines.size(); i++) {
                Matcher matcher = PROPERTY.matcher(lines.get(i));
                while (matcher.find()) {
                    String name = matcher.group();
                    if (!meters.contains(name) && !MISSPELT_ON_PURPOSE.contains(name) && properties.stream().noneMatch(known -> names(elements(name), known, true))) {
                        failures.add(MarkdownFiles.name(file) + ":" + (i + 1) + ": " + name
                                + " is no property (nor a meter name)");
                    }
                }
            }
        }
        assertThat(failures).as("property names in the docs").isEmpty();
    }

    @Test
    void everyPropertyOfTheYamlAndPropertiesExamplesExists() {
        List<String> failures = new ArrayList<>();
        for (Path file : MarkdownFiles.userDocs()) {
            List<String> lines = MarkdownFiles.lines(file);
            for (String language : List.of("yaml", "yml")) {
                for (MarkdownFiles.Block block : MarkdownFiles.blocks(lines, language)) {
                    for (Node document : new Yaml().composeAll(new StringReader(block.text()))) {
                        collectYaml(document, new ArrayList<>(), -1, (name, line) -> check(name,
                                MarkdownFiles.name(file) + ":" + (block.firstLine() + line), failures));
                    }
                }
            }
            for (MarkdownFiles.Block block : MarkdownFiles.blocks(lines, "properties")) {
                List<String> blockLines = block.text().lines().toList();
                for (int i = 0; i < blockLines.size(); i++) {
                    Matcher matcher = PROPERTIES_LINE.matcher(blockLines.get(i));
                    if (matcher.matches()) {
                        check(matcher.group(1), MarkdownFiles.name(file) + ":" + (block.firstLine() + i), failures);
                    }
                }
            }
        }
        assertThat(failures).as("properties of the YAML and properties examples").isEmpty();
    }

    /** Adds a failure unless {@code name}, when under {@code ratelimit.}, is a property (a whole one, no group). */
    private void check(String name, String where, List<String> failures) {
        if (name.startsWith("ratelimit.")
                && properties.stream().noneMatch(property -> names(elements(name), property, false))) {
            failures.add(where + ": " + name + " is no property");
        }
    }

    /** Calls {@code found} with each leaf's dotted name and its line (0-based) in the block. */
    private static void collectYaml(Node node, List<String> path, int line, BiConsumer<String, Integer> found) {
        if (node instanceof MappingNode mapping) {
            for (NodeTuple entry : mapping.getValue()) {
                if (entry.getKeyNode() instanceof ScalarNode key) {
                    List<String> child = new ArrayList<>(path);
                    child.addAll(List.of(key.getValue().split("\\.")));
                    collectYaml(entry.getValueNode(), child, key.getStartMark().getLine(), found);
                }
            }
        }
        else if (!path.isEmpty()) {
            found.accept(String.join(".", path), line);
        }
    }

    @Test
    void theConfigurationPageDocumentsEveryProperty() {
        Path page = MarkdownFiles.ROOT.resolve("docs/configuration.md");
        List<List<String>> documented = new ArrayList<>();
        Matcher matcher = PROPERTY.matcher(String.join("\n", MarkdownFiles.lines(page)));
        while (matcher.find()) {
            documented.add(elements(matcher.group()));
        }
        List<String> failures = properties.stream()
                .filter(property -> documented.stream().noneMatch(name -> names(name, property, false)))
                .map(property -> "ratelimit." + String.join(".", property) + " is not in docs/configuration.md")
                .toList();
        assertThat(failures).as("properties missing from docs/configuration.md").isEmpty();
    }

    @Test
    void theStartupCheckKnowsEveryPropertyOfTheMetadata() {
        PropertyNameTree tree = PropertyNameTree.of(RateLimitProperties.class);
        assertThat(properties).allSatisfy(property -> assertThat(tree.contains(
                property.stream().map(PropertyNameTree::uniform).toList(), false)).as(String.join(".", property)).isTrue());
        assertThat(tree.patterns()).allSatisfy(pattern -> assertThat(properties).as("metadata").contains(pattern));
    }

    @Test
    void namesAreReadAsWrittenAndMatchedAsBound() {
        assertThat(found("see `ratelimit.policies.<name>.tiers.<tier>.rate`, io.github.redissonratelimit.annotation"
                + ".RateLimit, ratelimit.key-prefix.")).containsExactly("ratelimit.policies.<name>.tiers.<tier>.rate",
                        "ratelimit.key-prefix");
        assertThat(exists("ratelimit.policies.checkout.rate")).isTrue();
        assertThat(exists("ratelimit.policies[a.b].on-backend-error")).isTrue();
        assertThat(exists("ratelimit.policies.*")).isTrue();
        assertThat(exists("ratelimit.headers.*-header")).isTrue();
        assertThat(exists("ratelimit.maxKeyLength")).isTrue();
        assertThat(exists("ratelimit.local-fallback")).isTrue();
        assertThat(exists("ratelimit.polices.x.rate")).isFalse();
        assertThat(exists("ratelimit.policies.x.rat")).isFalse();
        assertThat(exists("ratelimit.policies.x.tiers.gold.shadow")).isFalse();
        assertThat(exists("ratelimit.headers.*-heading")).isFalse();
        assertThat(exists("ratelimit.key-prefix.x")).isFalse();
        List<String> yamlFailures = new ArrayList<>();
        collectYaml(new Yaml().compose(new StringReader("ratelimit:\n  policies:\n    x:\n      rat: 5\n"
                + "      tiers.gold.rate: 5\n  key-prefix: a\n")), new ArrayList<>(), -1,
                (name, line) -> check(name, "line " + line, yamlFailures));
        assertThat(yamlFailures).containsExactly("line 3: ratelimit.policies.x.rat is no property");
    }

    private boolean exists(String name) {
        return properties.stream().anyMatch(property -> names(elements(name), property, true));
    }

    private static List<String> found(String text) {
        Matcher matcher = PROPERTY.matcher(text);
        List<String> names = new ArrayList<>();
        while (matcher.find()) {
            names.add(matcher.group());
        }
        return names;
    }

    /**
     * Every {@code ratelimit.*} property: the metadata's, a map's replaced by its value class's properties under a
     * {@value PropertyNameTree#MAP_KEY} key.
     */
    private static List<List<String>> properties() {
        PropertyNameTree tree = PropertyNameTree.of(RateLimitProperties.class);
        List<List<String>> properties = new ArrayList<>();
        for (Path file : List.of(GENERATED, ADDITIONAL)) {
            List<Map<String, Object>> entries = JsonPath.read(read(file), "$.properties[*]");
            for (Map<String, Object> entry : entries) {
                String name = entry.get("name").toString();
                if (!name.startsWith("ratelimit.")) {
                    continue;
                }
                List<String> elements = List.of(name.substring("ratelimit.".length()).split("\\."));
                String type = String.valueOf(entry.get("type"));
                PropertyNameTree value = tree.at(append(elements, PropertyNameTree.MAP_KEY));
                if (type.startsWith("java.util.Map<") && value != null && !value.takesAnyDescendant()) {
                    PropertyNameTree.of(RateLimitProperties.class).patterns().stream()
                            .filter(pattern -> pattern.size() > elements.size()
                                    && pattern.subList(0, elements.size()).equals(elements))
                            .forEach(properties::add);
                }
                else {
                    properties.add(elements);
                }
            }
        }
        return properties;
    }

    /**
     * Whether the name as written ({@code written}, after {@code ratelimit.}) names {@code property} (or, with
     * {@code groupsAndGlobs}, a group of it or, by a glob, it).
     */
    private static boolean names(List<String> written, List<String> property, boolean groupsAndGlobs) {
        if (written.size() > property.size() || (written.size() < property.size() && !groupsAndGlobs)) {
            return false;
        }
        for (int i = 0; i < written.size(); i++) {
            String element = written.get(i);
            String expected = property.get(i);
            boolean glob = element.contains("*");
            if (glob && !groupsAndGlobs) {
                return false;
            }
            if (PropertyNameTree.MAP_KEY.equals(expected)) {
                continue;
            }
            if (glob ? !expected.matches(element.replace("-", "\\-").replace("*", ".*"))
                    : !PropertyNameTree.uniform(element).equals(PropertyNameTree.uniform(expected))) {
                return false;
            }
        }
        return true;
    }

    /** "ratelimit.policies[a.b].rate" as [policies, a.b, rate]. */
    private static List<String> elements(String name) {
        List<String> elements = new ArrayList<>();
        Matcher matcher = Pattern.compile("\\.([^.\\[]+)|\\[([^\\]]+)\\]").matcher(name.substring("ratelimit".length()));
        while (matcher.find()) {
            elements.add(matcher.group(1) != null ? matcher.group(1) : matcher.group(2));
        }
        return elements;
    }

    /** The meter names the metrics classes declare: names of the docs, not properties. */
    private static Set<String> meterNames() {
        Set<String> meters = new LinkedHashSet<>();
        try (Stream<Path> sources = Files.walk(MarkdownFiles.ROOT)) {
            sources.filter(file -> file.toString().replace('\\', '/').matches(".*/src/main/java/.*/metrics/[^/]+\\.java"))
                    .forEach(file -> {
                        Matcher matcher = METER_NAME.matcher(read(file));
                        while (matcher.find()) {
                            meters.add(matcher.group(1));
                        }
                    });
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        assertThat(meters).as("meter names of the metrics classes").contains("ratelimit.requests");
        return meters;
    }

    private static List<String> append(List<String> elements, String element) {
        List<String> appended = new ArrayList<>(elements);
        appended.add(element);
        return appended;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
