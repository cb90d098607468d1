package io.github.redissonratelimit.compat.app;

import java.util.Map;
import java.util.UUID;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.github.redissonratelimit.annotation.RateLimit;

@RestController
@RequestMapping("/orders")
public class OrderController {

    /** Each user may submit 5 orders a minute, across every instance of the app. */
    @PostMapping("/submit")
    @RateLimit(key = "'order:submit:' + #userId", rate = 5, interval = 60,
            message = "You can submit at most 5 orders per minute")
    public Map<String, String> submit(@RequestParam String userId) {
        return Map.of("orderId", UUID.randomUUID().toString(), "userId", userId, "status", "ACCEPTED");
    }

    /** 100 reads a second for everyone together. */
    @GetMapping("/detail")
    @RateLimit(rate = 100, interval = 1, message = "Order details are busy, try again shortly")
    public Map<String, String> detail() {
        return Map.of("status", "OK");
    }

    /** A composed annotation: 2 cancellations per order a minute. */
    @PostMapping("/{orderId}/cancel")
    @CancellationLimit
    public Map<String, String> cancel(@PathVariable String orderId) {
        return Map.of("orderId", orderId, "status", "CANCELLED");
    }
}
