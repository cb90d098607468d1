package io.github.redissonratelimit.test.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Which top-level class of a source tree imports which, from the import lines, and the package cycles they make. */
final class ImportGraph {

    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);

    private static final Pattern IMPORT = Pattern.compile("^import\\s+(?:static\\s+)?([\\w.]+?)(?:\\.\\*)?\\s*;",
            Pattern.MULTILINE);

    /** Per importing top-level class, the project's top-level classes (or packages, for a wildcard) it imports. */
    private final Map<String, Set<String>> imports;

    /** The packages of the source tree. */
    private final Set<String> packages;

    private ImportGraph(Map<String, Set<String>> imports, Set<String> packages) {
        this.imports = imports;
        this.packages = packages;
    }

    static ImportGraph read(Path sources) {
        Map<String, Set<String>> imports = new TreeMap<>();
        Set<String> packages = new TreeSet<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path file : files.filter(path -> path.toString().endsWith(".java")).toList()) {
                String source = Files.readString(file);
                Matcher declared = PACKAGE.matcher(source);
                String packageName = declared.find() ? declared.group(1) : "";
                packages.add(packageName);
                String fileName = file.getFileName().toString();
                String importer = packageName + "." + fileName.substring(0, fileName.length() - ".java".length());
                Set<String> imported = imports.computeIfAbsent(importer, name -> new TreeSet<>());
                Matcher matcher = IMPORT.matcher(source);
                while (matcher.find()) {
                    imported.add(topLevel(matcher.group(1)));
                }
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return new ImportGraph(imports, packages);
    }

    int packageCount() {
        return packages.size();
    }

    /** Each set of packages of the source tree that import one another in a cycle, with the imports that make it. */
    List<String> cycles() {
        Map<String, Map<String, Set<String>>> edges = packageEdges();
        List<String> cycles = new ArrayList<>();
        Set<String> placed = new TreeSet<>();
        for (String start : packages) {
            if (placed.contains(start)) {
                continue;
            }
            Set<String> cycle = new TreeSet<>();
            for (String other : reachable(start, edges)) {
                if (reachable(other, edges).contains(start)) {
                    cycle.add(other);
                }
            }
            if (cycle.size() > 1) {
                placed.addAll(cycle);
                cycles.add(describe(cycle, edges));
            }
        }
        return cycles;
    }

    /** Per package, the other packages of the tree it imports from, with the imports that do it. */
    private Map<String, Map<String, Set<String>>> packageEdges() {
        Map<String, Map<String, Set<String>>> edges = new TreeMap<>();
        imports.forEach((importer, imported) -> {
            String from = packageOf(importer);
            for (String type : imported) {
                String to = packages.contains(type) ? type : packageOf(type);
                if (!to.equals(from) && packages.contains(to)) {
                    edges.computeIfAbsent(from, name -> new TreeMap<>()).computeIfAbsent(to, name -> new TreeSet<>())
                            .add(importer + " imports " + type);
                }
            }
        });
        return edges;
    }

    private static Set<String> reachable(String start, Map<String, Map<String, Set<String>>> edges) {
        Set<String> seen = new LinkedHashSet<>(List.of(start));
        Deque<String> todo = new ArrayDeque<>(List.of(start));
        while (!todo.isEmpty()) {
            for (String next : edges.getOrDefault(todo.pop(), Map.of()).keySet()) {
                if (seen.add(next)) {
                    todo.push(next);
                }
            }
        }
        return seen;
    }

    private static String describe(Set<String> cycle, Map<String, Map<String, Set<String>>> edges) {
        StringBuilder description = new StringBuilder("Cycle among " + cycle + ":");
        for (String from : cycle) {
            edges.getOrDefault(from, Map.of()).forEach((to, lines) -> {
                if (cycle.contains(to)) {
                    description.append("\n  ").append(from).append(" -> ").append(to).append(": ")
                            .append(String.join(", ", lines));
                }
            });
        }
        return description.toString();
    }

    /** {@code a.b.C.D} and {@code a.b.C.method} (static) are {@code a.b.C}; {@code a.b} stays {@code a.b}. */
    private static String topLevel(String name) {
        String[] parts = name.split("\\.");
        for (int i = 0; i < parts.length; i++) {
            if (Character.isUpperCase(parts[i].charAt(0))) {
                return String.join(".", List.of(parts).subList(0, i + 1));
            }
        }
        return name;
    }

    private static String packageOf(String topLevelClass) {
        int dot = topLevelClass.lastIndexOf('.');
        return dot < 0 ? "" : topLevelClass.substring(0, dot);
    }
}
