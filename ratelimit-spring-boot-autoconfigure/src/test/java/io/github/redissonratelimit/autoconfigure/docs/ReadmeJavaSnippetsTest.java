package io.github.redissonratelimit.autoconfigure.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java of README.md compiles: each {@code ```java} block, as a whole compilation unit, against the test class
 * path (the starter's dependencies: Spring Boot, Spring MVC and WebFlux, Redisson, this project).
 */
class ReadmeJavaSnippetsTest {

    private static final Pattern TYPE_NAME = Pattern
            .compile("(?m)^\\s*(?:(?:public|final|abstract|sealed|non-sealed)\\s+)*(?:class|interface|record|enum|@interface)\\s+(\\w+)");

    @TempDir
    Path classes;

    @Test
    void everyJavaBlockOfTheReadmeCompiles() throws IOException {
        Path readme = MarkdownFiles.ROOT.resolve("README.md");
        List<MarkdownFiles.Block> blocks = MarkdownFiles.blocks(MarkdownFiles.lines(readme), "java");
        assertThat(blocks).as("```java blocks in README.md").isNotEmpty();
        List<String> failures = new ArrayList<>();
        for (MarkdownFiles.Block block : blocks) {
            String diagnostics = compile(block);
            if (!diagnostics.isEmpty()) {
                failures.add("README.md:" + block.firstLine() + ": the ```java block does not compile:\n" + diagnostics);
            }
        }
        assertThat(failures).as("README.md Java blocks").isEmpty();
    }

    @Test
    void aBlockCompilesAgainstTheStartersClassPathAndErrorsNameTheirReadmeLine() throws IOException {
        String controller = """
                import org.springframework.web.bind.annotation.PostMapping;
                import org.springframework.web.bind.annotation.RestController;

                import io.github.redissonratelimit.annotation.RateLimit;

                @RestController
                public class OrderController {

                    @PostMapping("/orders")
                    @RateLimit(key = "#userId", rate = 5, interval = 60)
                    String submit(String userId) {
                        return userId;
                    }
                }
                """;
        assertThat(compile(new MarkdownFiles.Block(10, controller))).isEmpty();
        assertThat(compile(new MarkdownFiles.Block(10, controller.replace("return userId;", "return order;"))))
                .startsWith("  README.md:21: ").contains("order");
    }

    /** The compiler's errors for {@code block}, each with its line in the README; empty when it compiles. */
    private String compile(MarkdownFiles.Block block) throws IOException {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
            files.setLocation(StandardLocation.CLASS_OUTPUT, List.of(classes.toFile()));
            List<String> options = List.of("-classpath", System.getProperty("java.class.path"), "-proc:none",
                    "-parameters", "-Xlint:none", "-implicit:none");
            StringWriter out = new StringWriter();
            boolean compiled = compiler.getTask(out, files, diagnostics, options, null, List.of(new Snippet(block)))
                    .call();
            StringBuilder report = new StringBuilder();
            for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
                if (diagnostic.getKind() == Diagnostic.Kind.ERROR) {
                    long line = diagnostic.getLineNumber() < 1 ? block.firstLine()
                            : block.firstLine() + diagnostic.getLineNumber() - 1;
                    report.append("  README.md:").append(line).append(": ")
                            .append(diagnostic.getMessage(Locale.ROOT)).append('\n');
                }
            }
            if (!compiled && report.isEmpty()) {
                report.append("  ").append(out);
            }
            return report.toString();
        }
    }

    /** A README block as a source file, named after its first type so that a public type compiles. */
    private static final class Snippet extends SimpleJavaFileObject {

        private final String text;

        Snippet(MarkdownFiles.Block block) {
            super(URI.create("string:///README_line_" + block.firstLine() + "/" + typeName(block.text()) + ".java"),
                    Kind.SOURCE);
            this.text = block.text();
        }

        private static String typeName(String text) {
            Matcher matcher = TYPE_NAME.matcher(text);
            return matcher.find() ? matcher.group(1) : "Snippet";
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return text;
        }
    }
}
