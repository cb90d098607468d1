package io.github.redissonratelimit.sample;

import java.util.Map;
import java.util.UUID;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimit;

@RestController
@RequestMapping("/orders")
public class OrderController {

    /** Each user may submit 5 orders a minute, across every instance of the app. */
    @PostMapping("/submit")
    @RateLimit(name = "order-submit", key = "'order:submit:' + #userId", rate = 5, interval = 60,
            message = "You can submit at most 5 orders per minute")
    public Map<String, String> submit(@RequestParam String userId) {
        return Map.of("orderId", UUID.randomUUID().toString(), "userId", userId, "status", "ACCEPTED");
    }

    /**
     * Two searches a second and 20 a minute per user. A search the minute limit rejects gives its
     * per-second permit back. Responses carry both policies in {@code RateLimit-Policy}.
     */
    @GetMapping("/search")
    @RateLimit(name = "order-search-burst", key = "'order:search:burst:' + #userId", rate = 2, interval = 1,
            message = "At most 2 searches per second")
    @RateLimit(name = "order-search-minute", key = "'order:search:minute:' + #userId", rate = 20, interval = 60,
            message = "At most 20 searches per minute")
    public Map<String, String> search(@RequestParam String userId) {
        return Map.of("userId", userId, "orders", "[]");
    }

    /**
     * A quota: 3 exports per user and calendar day (UTC), whatever the time of day they come at; the 4th is refused
     * until midnight. A fixed window, one key per user (docs/algorithms.md).
     */
    @GetMapping("/export")
    @RateLimit(name = "order-export", key = "'order:export:' + #userId", rate = 3, calendar = CalendarPeriod.DAY,
            message = "At most 3 exports per day")
    public Map<String, String> export(@RequestParam String userId) {
        return Map.of("userId", userId, "export", "orders.csv");
    }

    /** 100 reads a second for everyone together. */
    @GetMapping("/detail")
    @RateLimit(rate = 100, interval = 1, message = "Order details are busy, try again shortly")
    public Map<String, String> detail() {
        return Map.of("status", "OK");
    }
}
