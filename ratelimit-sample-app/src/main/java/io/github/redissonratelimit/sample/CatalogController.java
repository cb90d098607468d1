package io.github.redissonratelimit.sample;

import java.util.List;
import java.util.Map;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Not annotated: limited by the route {@code catalog-search} in application.yml, one limit of 1,000 searches a second
 * for everyone, across every instance, whose permits each instance leases in batches (most searches make no call to
 * Redis).
 */
@RestController
public class CatalogController {

    @GetMapping("/catalog/search")
    public Map<String, Object> search(@RequestParam(defaultValue = "") String q) {
        return Map.of("q", q, "items", List.of());
    }
}
