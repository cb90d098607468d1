package io.github.redissonratelimit.test.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The import-line half of the package-cycle check, on source trees written for the test. */
class ImportGraphTest {

    @TempDir
    Path sources;

    @Test
    void aStaticImportBackClosesACycleThatNamesItsImports() throws IOException {
        write("app/Root.java", "package app;\n\nimport app.store.Store;\n\npublic class Root {\n}\n");
        write("app/store/Store.java", "package app.store;\n\nimport static app.Root.VERSIONS;\n\nclass Store {\n}\n");
        write("app/web/Web.java", "package app.web;\n\nimport app.store.*;\nimport app.Root;\n\nclass Web {\n}\n");

        assertThat(ImportGraph.read(sources).cycles()).singleElement().isEqualTo("""
                Cycle among [app, app.store]:
                  app -> app.store: app.Root imports app.store.Store
                  app.store -> app: app.store.Store imports app.Root""");
    }

    @Test
    void importsThatAllPointOneWayMakeNoCycle() throws IOException {
        write("app/Root.java", "package app;\n\nimport java.util.List;\nimport app.store.Store.Entry;\n\nclass Root {\n}\n");
        write("app/store/Store.java", "package app.store;\n\nimport app.web.*;\n\nclass Store {\n}\n");
        write("app/web/Web.java", "package app.web;\n\nimport org.example.Root;\n\nclass Web {\n}\n");

        ImportGraph graph = ImportGraph.read(sources);

        assertThat(graph.packageCount()).isEqualTo(3);
        assertThat(graph.cycles()).isEmpty();
    }

    @Test
    void aCycleThroughThreePackagesIsOneCycle() throws IOException {
        write("app/a/A.java", "package app.a;\n\nimport app.b.B;\n\nclass A {\n}\n");
        write("app/b/B.java", "package app.b;\n\nimport app.c.C.Nested;\n\nclass B {\n}\n");
        write("app/c/C.java", "package app.c;\n\nimport app.a.*;\n\nclass C {\n}\n");

        assertThat(ImportGraph.read(sources).cycles()).singleElement().asString()
                .startsWith("Cycle among [app.a, app.b, app.c]:")
                .contains("app.b.B imports app.c.C", "app.c.C imports app.a");
    }

    private void write(String path, String source) throws IOException {
        Path file = sources.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, source);
    }
}
