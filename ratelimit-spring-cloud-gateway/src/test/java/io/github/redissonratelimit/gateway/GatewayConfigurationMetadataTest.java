package io.github.redissonratelimit.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.jayway.jsonpath.JsonPath;

/**
 * The metadata generated from {@link RateLimitGatewayProperties} has every property of the module with its
 * description, and docs/configuration.md documents each of them.
 */
class GatewayConfigurationMetadataTest {

    private static final Path DOCS = Path.of("../docs/configuration.md");

    @Test
    void everyPropertyHasADescriptionAndARowInTheDocs() throws IOException {
        List<Map<String, Object>> properties = new ArrayList<>();
        // every jar's metadata: the module's classes are a directory here and a jar where the Boot 4 suite runs this
        for (URL metadata : Collections.list(getClass().getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = metadata.openStream()) {
                properties.addAll(JsonPath.read(new String(in.readAllBytes(), StandardCharsets.UTF_8),
                        "$.properties[*]"));
            }
        }
        String docs = Files.readString(DOCS);
        List<Map<String, Object>> ours = properties.stream().filter(property -> property.get("name").toString()
                .startsWith("spring.cloud.gateway.server.webflux.redisson-rate-limiter.")).toList();
        assertThat(ours).isNotEmpty();
        assertThat(ours).allSatisfy(property -> {
            String name = property.get("name").toString();
            assertThat(property.get("description")).as("description of %s", name).asString().isNotBlank();
            assertThat(docs).as("docs/configuration.md documents %s", name).contains("| `" + name);
        });
    }
}
