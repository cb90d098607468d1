package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

/**
 * The metadata generated from {@link RateLimitProperties} and its groups (what IDEs complete and explain) has every
 * {@code ratelimit.*} property with its description, and docs/configuration.md documents each of them.
 */
class ConfigurationMetadataTest {

    private static final Path METADATA = Path.of("target/classes/META-INF/spring-configuration-metadata.json");

    private static final Path DOCS = Path.of("../docs/configuration.md");

    @Test
    void everyPropertyHasADescriptionAndARowInTheDocs() throws IOException {
        List<Map<String, Object>> properties = JsonPath.read(Files.readString(METADATA), "$.properties[*]");
        String docs = Files.readString(DOCS);
        List<Map<String, Object>> ours = properties.stream()
                .filter(property -> property.get("name").toString().startsWith("ratelimit.")).toList();
        assertThat(ours).hasSizeGreaterThanOrEqualTo(33);
        assertThat(ours).allSatisfy(property -> {
            String name = property.get("name").toString();
            assertThat(property.get("description")).as("description of %s", name).asString().isNotBlank();
            assertThat(docs).as("docs/configuration.md documents %s", name).contains("| `" + name);
        });
    }
}
