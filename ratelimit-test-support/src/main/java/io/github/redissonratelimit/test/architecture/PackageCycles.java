package io.github.redissonratelimit.test.architecture;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.SliceRule;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;

/**
 * Fails when a package of one module uses, directly or through other packages, a package that uses it. Every
 * package is a node of its own, the module's root package included (ArchUnit's {@code slices().matching("..(*)..")}
 * would leave the root out, and the root packages hold classes).
 *
 * <p>Checked twice: on the module's class files (every type the JVM links, fully qualified uses included) and on
 * the import lines of its sources, which show what the class files no longer do: a constant that javac copied into
 * the class using it, a type named only in Javadoc. Either is a dependency a reader has to follow.
 */
public final class PackageCycles {

    private static final SliceAssignment EVERY_PACKAGE = new SliceAssignment() {

        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
            return SliceIdentifier.of(javaClass.getPackageName());
        }

        @Override
        public String getDescription() {
            return "every package, the root package included";
        }
    };

    private static final SliceRule RULE = SlicesRuleDefinition.slices().assignedFrom(EVERY_PACKAGE).should()
            .beFreeOfCycles();

    private final Class<?> anyMainClass;

    private final Path sources;

    private PackageCycles(Class<?> anyMainClass, Path sources) {
        this.anyMainClass = anyMainClass;
        this.sources = sources;
    }

    /**
     * The module whose main classes include {@code anyMainClass}, with its sources in {@code src/main/java} of the
     * working directory (Maven's surefire runs tests in the module's directory).
     */
    public static PackageCycles ofModuleOf(Class<?> anyMainClass) {
        return new PackageCycles(anyMainClass, Path.of("src", "main", "java"));
    }

    /** @throws AssertionError naming each cycle, with the dependencies that make it */
    public void check() {
        JavaClasses classes = new ClassFileImporter().importUrl(classesLocation());
        ImportGraph imports = ImportGraph.read(sources);
        if (classes.size() < 2 || imports.packageCount() < 2) {
            throw new AssertionError("Found " + classes.size() + " classes and " + imports.packageCount()
                    + " packages of sources: not the module's (run in the module's directory)");
        }
        List<String> failures = new ArrayList<>();
        EvaluationResult classFiles = RULE.evaluate(classes);
        if (classFiles.hasViolation()) {
            failures.add("Class files:\n" + classFiles.getFailureReport());
        }
        List<String> sourceCycles = imports.cycles();
        if (!sourceCycles.isEmpty()) {
            failures.add("Import lines of " + sources + ":\n" + String.join("\n", sourceCycles));
        }
        if (!failures.isEmpty()) {
            throw new AssertionError("Package cycles in the module of " + anyMainClass.getName() + ":\n"
                    + String.join("\n\n", failures));
        }
    }

    private URL classesLocation() {
        URL location = anyMainClass.getProtectionDomain().getCodeSource().getLocation();
        try {
            if (!Files.isDirectory(Path.of(location.toURI()))) {
                throw new AssertionError(anyMainClass + " is not loaded from a classes directory: " + location);
            }
        }
        catch (URISyntaxException ex) {
            throw new AssertionError(ex);
        }
        return location;
    }
}
