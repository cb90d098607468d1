package io.github.redissonratelimit.sample;

import java.util.Map;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** Not annotated: limited by the route {@code status-per-address} in application.yml. */
@RestController
public class StatusController {

    @GetMapping("/status")
    public Map<String, String> status() {
        return Map.of("status", "OK");
    }
}
