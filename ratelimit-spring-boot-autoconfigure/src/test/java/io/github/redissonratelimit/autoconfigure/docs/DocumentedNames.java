package io.github.redissonratelimit.autoconfigure.docs;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;

/**
 * Finds the names a page gives that the code does not have ({@link CodeNames}): {@code @RateLimit} attributes (in
 * {@code @RateLimit(...)}, spanning lines, and in tables headed {@code attribute}) and the enum constants they are
 * given, constants written {@code Type.CONSTANT} or as a {@code `CONSTANT_NAME`} code span, Actuator endpoint paths,
 * and meters: in tables headed {@code meter}, with tags ({@code ratelimit.requests{result="allowed"}}) or as
 * Prometheus names them ({@code ratelimit_requests_total}), and the values YAML and properties examples give to
 * enum-valued {@code ratelimit.*} properties. Which properties exist is {@code DocumentedPropertiesTest}'s.
 */
final class DocumentedNames {

    /** Environment variables the pages name in the style of enum constants. */
    private static final Set<String> ENVIRONMENT = Set.of("REDIS_URL");

    /** Labels Prometheus adds to a meter's series. */
    private static final Set<String> PROMETHEUS_LABELS = Set.of("le", "quantile", "job", "instance");

    private static final Pattern ANNOTATION = Pattern.compile("@RateLimit\\(");

    private static final Pattern ASSIGNMENT = Pattern.compile("^\\s*(\\w+)\\s*=(?!=)\\s*(.*)$", Pattern.DOTALL);

    private static final Pattern CONSTANT_OF = Pattern.compile("\\b([A-Z]\\w+)\\.([A-Z][A-Z0-9_]*)\\b(?![.(])");

    private static final Pattern CONSTANT_SPAN = Pattern.compile("`([A-Z][A-Z0-9]*_[A-Z0-9_]+)`");

    private static final Pattern ENDPOINT = Pattern.compile("/actuator/([\\w-]+)");

    private static final Pattern DOTTED_METER = Pattern.compile("(?<![\\w.$/-])(ratelimit(?:\\.\\w+)+)(\\{[^}]*\\})?");

    private static final Pattern PROMETHEUS_METER = Pattern.compile("(?<![\\w.])(ratelimit_\\w+)(\\{[^}]*\\})?");

    private static final Pattern PROMETHEUS_SUFFIX = Pattern.compile(
            "(_seconds)?(_total|_count|_sum|_max|_bucket)?$");

    private static final Pattern PROPERTIES_ENTRY = Pattern.compile("^\\s*([^#!\\s=:][^\\s=:]*)\\s*[=:]\\s*(.*?)\\s*$");

    private static final Pattern LABEL = Pattern.compile("(\\w+)\\s*(=~|!=|!~|=)\\s*\"?([^\",]*)\"?");

    private final CodeNames code;

    DocumentedNames(CodeNames code) {
        this.code = code;
    }

    /** What {@code lines} of {@code page} name that the code does not have, each as {@code page:line: problem}. */
    List<String> check(String page, List<String> lines) {
        List<String> problems = new ArrayList<>();
        String text = String.join("\n", lines);
        annotations(text, (offset, problem) -> problems.add(page + ":" + lineOf(text, offset) + ": " + problem));
        String table = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            String where = page + ":" + (i + 1) + ": ";
            table = line.startsWith("|") ? (table == null ? firstCell(line) : table) : null;
            if (line.startsWith("|") && !line.startsWith("| ---") && !firstCell(line).equals(table)) {
                tableRow(table, firstCell(line), where, problems);
            }
            constants(line, where, problems);
            Matcher endpoint = ENDPOINT.matcher(line);
            while (endpoint.find()) {
                if (!code.endpoints.contains(endpoint.group(1))) {
                    problems.add(where + "/actuator/" + endpoint.group(1) + " is no Actuator endpoint");
                }
            }
            meters(line, where, problems);
        }
        propertyValues(page, lines, problems);
        return problems;
    }

    /** The values the YAML and properties examples give to enum-valued {@code ratelimit.*} properties. */
    private void propertyValues(String page, List<String> lines, List<String> problems) {
        for (String language : List.of("yaml", "yml")) {
            for (MarkdownFiles.Block block : MarkdownFiles.blocks(lines, language)) {
                for (Node document : new Yaml().composeAll(new StringReader(block.text()))) {
                    leaves(document, new ArrayList<>(), (name, value) -> propertyValue(name, value.getValue(),
                            page + ":" + (block.firstLine() + value.getStartMark().getLine()) + ": ", problems));
                }
            }
        }
        for (MarkdownFiles.Block block : MarkdownFiles.blocks(lines, "properties")) {
            List<String> blockLines = block.text().lines().toList();
            for (int i = 0; i < blockLines.size(); i++) {
                Matcher entry = PROPERTIES_ENTRY.matcher(blockLines.get(i));
                if (entry.matches()) {
                    propertyValue(entry.group(1), entry.group(2), page + ":" + (block.firstLine() + i) + ": ", problems);
                }
            }
        }
    }

    private void propertyValue(String name, String value, String where, List<String> problems) {
        if (!name.startsWith("ratelimit.")) {
            return;
        }
        String last = name.substring(name.lastIndexOf('.') + 1).replaceAll("([A-Z])", "-$1").toLowerCase();
        Set<String> constants = code.enumProperties.get(last);
        if (constants != null && !value.isBlank() && !value.contains("${")
                && !constants.contains(value.strip().toUpperCase().replace('-', '_'))) {
            problems.add(where + name + "=" + value.strip() + " is none of " + constants);
        }
    }

    private static void leaves(Node node, List<String> path, BiConsumer<String, ScalarNode> found) {
        if (node instanceof MappingNode mapping) {
            for (NodeTuple entry : mapping.getValue()) {
                if (entry.getKeyNode() instanceof ScalarNode key) {
                    List<String> child = new ArrayList<>(path);
                    child.addAll(List.of(key.getValue().split("\\.")));
                    leaves(entry.getValueNode(), child, found);
                }
            }
        }
        else if (node instanceof ScalarNode scalar && !path.isEmpty()) {
            found.accept(String.join(".", path), scalar);
        }
    }

    private void tableRow(String table, String cell, String where, List<String> problems) {
        Matcher span = Pattern.compile("`([^`]+)`").matcher(cell);
        while (span.find()) {
            String name = span.group(1);
            if (table.equals("attribute") && !code.attributes.contains(name)) {
                problems.add(where + name + " is no @RateLimit attribute");
            }
            if (table.equals("meter") && !code.meterTags.containsKey(name)) {
                problems.add(where + name + " is no meter");
            }
        }
    }

    private void constants(String line, String where, List<String> problems) {
        Matcher of = CONSTANT_OF.matcher(line);
        while (of.find()) {
            Set<String> constants = code.enums.get(of.group(1));
            if (constants != null && !constants.contains(of.group(2))) {
                problems.add(where + of.group() + " is no constant of " + of.group(1));
            }
        }
        Matcher span = CONSTANT_SPAN.matcher(line);
        while (span.find()) {
            String name = span.group(1);
            if (!code.isEnumConstant(name) && !ENVIRONMENT.contains(name) && !name.startsWith("RATELIMIT_")) {
                problems.add(where + name + " is no constant of a public enum");
            }
        }
    }

    private void meters(String line, String where, List<String> problems) {
        Matcher dotted = DOTTED_METER.matcher(line);
        while (dotted.find()) {
            if (dotted.group(2) != null) {
                labels(dotted.group(1), dotted.group(2), where, problems);
            }
        }
        Matcher prometheus = PROMETHEUS_METER.matcher(line);
        while (prometheus.find()) {
            String meter = meterOf(prometheus.group(1));
            if (meter == null) {
                problems.add(where + prometheus.group(1) + " is no meter as Prometheus names it");
            }
            else if (prometheus.group(2) != null) {
                labels(meter, prometheus.group(2), where, problems);
            }
        }
    }

    /** The meter a Prometheus series name belongs to, or null. */
    String meterOf(String series) {
        String base = PROMETHEUS_SUFFIX.matcher(series).replaceFirst("");
        return code.meterTags.keySet().stream().filter(meter -> meter.replace('.', '_').equals(base)
                || meter.replace('.', '_').equals(series)).findFirst().orElse(null);
    }

    private void labels(String meter, String braces, String where, List<String> problems) {
        Set<String> tags = code.meterTags.get(meter);
        if (tags == null) {
            problems.add(where + meter + " is no meter");
            return;
        }
        Matcher label = LABEL.matcher(braces.substring(1, braces.length() - 1));
        while (label.find()) {
            String key = label.group(1);
            if (!tags.contains(key) && !PROMETHEUS_LABELS.contains(key)) {
                problems.add(where + meter + " has no tag " + key);
            }
            else if (key.equals("result")) {
                for (String value : label.group(3).split("\\|")) {
                    if (value.matches("\\w+") && !code.results.contains(value)) {
                        problems.add(where + "result=" + value + " is no result of " + meter);
                    }
                }
            }
        }
    }

    /** Each {@code @RateLimit(...)}: its attributes, and the constants given to those that take an enum. */
    private void annotations(String text, BiConsumer<Integer, String> problem) {
        Matcher annotation = ANNOTATION.matcher(text);
        while (annotation.find()) {
            int start = annotation.end();
            for (String argument : arguments(text, start)) {
                Matcher assignment = ASSIGNMENT.matcher(argument);
                if (!assignment.matches()) {
                    continue;
                }
                String attribute = assignment.group(1);
                if (!code.attributes.contains(attribute)) {
                    problem.accept(start, attribute + " is no @RateLimit attribute");
                    continue;
                }
                Class<?> type = CodeNames.enumOfAttribute(attribute);
                Matcher value = Pattern.compile("^(?:(\\w+)\\.)?([A-Z][A-Z0-9_]*)\\s*$").matcher(assignment.group(2));
                if (type != null && value.matches()
                        && (value.group(1) == null || value.group(1).equals(type.getSimpleName()))
                        && Arrays.stream(type.getEnumConstants())
                                .noneMatch(constant -> ((Enum<?>) constant).name().equals(value.group(2)))) {
                    problem.accept(start, attribute + " = " + value.group(2) + " is no constant of "
                            + type.getSimpleName());
                }
            }
        }
    }

    /** The arguments of the annotation whose parenthesis opened before {@code start}, split at top-level commas. */
    private static List<String> arguments(String text, int start) {
        List<String> arguments = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int depth = 1;
        for (int i = start; i < text.length() && depth > 0; i++) {
            char c = text.charAt(i);
            if (c == '"') {
                int end = text.indexOf('"', i + 1);
                while (end > 0 && text.charAt(end - 1) == '\\') {
                    end = text.indexOf('"', end + 1);
                }
                end = end < 0 ? text.length() - 1 : end;
                current.append(text, i, end + 1);
                i = end;
                continue;
            }
            depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            if (depth == 0 || (depth == 1 && c == ',')) {
                arguments.add(current.toString());
                current.setLength(0);
            }
            else {
                current.append(c);
            }
        }
        return arguments;
    }

    private static String firstCell(String row) {
        String[] cells = row.split("\\|");
        return cells.length > 1 ? cells[1].strip() : "";
    }

    private static int lineOf(String text, int offset) {
        return (int) text.substring(0, offset).chars().filter(c -> c == '\n').count() + 1;
    }
}
