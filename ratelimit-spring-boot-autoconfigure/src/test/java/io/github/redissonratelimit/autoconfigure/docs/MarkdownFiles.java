package io.github.redissonratelimit.autoconfigure.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The user documentation the checks read: README.md, CONTRIBUTING.md (when there is one) and docs/*.md of the
 * repository, whose root is the module's parent directory (where Maven runs the tests from).
 */
public final class MarkdownFiles {

    /** The repository root, seen from the module's directory. */
    public static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private MarkdownFiles() {
    }

    /** README.md, CONTRIBUTING.md if present, and every docs/*.md. */
    public static List<Path> userDocs() {
        List<Path> files = new ArrayList<>();
        files.add(ROOT.resolve("README.md"));
        if (Files.exists(ROOT.resolve("CONTRIBUTING.md"))) {
            files.add(ROOT.resolve("CONTRIBUTING.md"));
        }
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(file -> file.getFileName().toString().endsWith(".md")).sorted().forEach(files::add);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return files;
    }

    /** The pages for users: README.md and docs/*.md but the maintainers' benchmarks.md, performance.md and releasing.md. */
    public static List<Path> userPages() {
        return userDocs().stream().filter(file -> !file.getFileName().toString().equals("CONTRIBUTING.md")
                && !List.of("benchmarks.md", "performance.md", "releasing.md").contains(file.getFileName().toString()))
                .toList();
    }

    public static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** The file as the failure messages name it, e.g. {@code docs/limits.md}. */
    public static String name(Path file) {
        return ROOT.relativize(file.toAbsolutePath().normalize()).toString().replace('\\', '/');
    }

    /** Whether each line is inside a fenced code block (the fences included). */
    public static boolean[] inFence(List<String> lines) {
        boolean[] fenced = new boolean[lines.size()];
        boolean open = false;
        for (int i = 0; i < lines.size(); i++) {
            boolean fence = lines.get(i).stripLeading().startsWith("```");
            fenced[i] = open || fence;
            if (fence) {
                open = !open;
            }
        }
        return fenced;
    }

    /** The fenced blocks of a language ({@code java}), each with the line number (1-based) of its first line. */
    public static List<Block> blocks(List<String> lines, String language) {
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().equals("```" + language)) {
                int start = i + 1;
                int end = start;
                while (end < lines.size() && !lines.get(end).strip().startsWith("```")) {
                    end++;
                }
                blocks.add(new Block(start + 1, String.join("\n", lines.subList(start, end)) + "\n"));
                i = end;
            }
        }
        return blocks;
    }

    /** A fenced block: its text and the line number (1-based) of its first line in the file. */
    public record Block(int firstLine, String text) {
    }
}
