package io.github.redissonratelimit.benchmarks;

import io.github.redissonratelimit.annotation.RateLimit;

/** The methods limited with this project's {@code @RateLimit}, called through their Spring proxy. */
public class AnnotatedService {

    @RateLimit(key = "#userId", rate = Limits.GENEROUS_RATE, window = "1s")
    public String decide(String userId) {
        return userId;
    }

    /** Two limits on one call: the user's own and their region's (8 regions), both far above what runs ask for. */
    @RateLimit(name = "user", key = "'pair:' + #userId", rate = Limits.GENEROUS_RATE, window = "1s")
    @RateLimit(name = "region", key = "'region:' + #region", rate = Limits.GENEROUS_RATE, window = "1s")
    public String decideTwoLimits(String userId, int region) {
        return userId;
    }

    @RateLimit(key = "'flood:' + #userId", rate = Limits.FLOOD_RATE, window = "1s")
    public String flood(String userId) {
        return userId;
    }
}
