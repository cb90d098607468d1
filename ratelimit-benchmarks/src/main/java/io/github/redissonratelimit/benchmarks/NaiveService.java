package io.github.redissonratelimit.benchmarks;

/** The method limited by the hand-rolled aspect, called through its Spring proxy. */
public class NaiveService {

    @NaiveRateLimit(key = "#userId", rate = Limits.GENEROUS_RATE, interval = 1)
    public String decide(String userId) {
        return userId;
    }
}
