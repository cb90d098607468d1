package io.github.redissonratelimit.sample;

import java.util.Map;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;

@RestController
@RequestMapping("/reports")
public class ReportController {

    /** Longer exports are cut short: the sample's threads are not for parking. */
    static final long LONGEST_EXPORT_MS = 600_000;

    /**
     * At most 3 exports in flight per tenant, across every instance of the app: an export holds its permit from its
     * start to its end, however long it takes; the 4th at once is refused with 429, and the next one passes as soon as
     * one of them ends. {@code ms} stands for the export's work.
     */
    @PostMapping("/export")
    @RateLimit(name = "report-export", key = "'export:' + #tenant", rate = 3, algorithm = RateLimitAlgorithm.IN_FLIGHT,
            message = "At most 3 exports per tenant at once")
    public Map<String, Object> export(@RequestParam String tenant, @RequestParam(defaultValue = "0") long ms)
            throws InterruptedException {
        long took = Math.max(0, Math.min(ms, LONGEST_EXPORT_MS));
        Thread.sleep(took);
        return Map.of("tenant", tenant, "export", "report.csv", "ms", took);
    }
}
