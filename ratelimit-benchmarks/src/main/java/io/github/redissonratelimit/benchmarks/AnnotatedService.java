package io.github.redissonratelimit.benchmarks;

import io.github.redissonratelimit.annotation.RateLimit;

/** The methods limited with this project's {@code @RateLimit}, called through their Spring proxy. */
public class AnnotatedService {

    @RateLimit(key = "#userId", rate = Limits.GENEROUS_RATE, window = "1s")
    public String decide(String userId) {
        return userId;
    }

    @RateLimit(key = "'flood:' + #userId", rate = Limits.FLOOD_RATE, window = "1s")
    public String flood(String userId) {
        return userId;
    }
}
