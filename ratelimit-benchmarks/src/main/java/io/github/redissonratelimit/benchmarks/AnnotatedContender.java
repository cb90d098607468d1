package io.github.redissonratelimit.benchmarks;

import io.github.redissonratelimit.RateLimitExceededException;

/**
 * (b) This project: an {@code @RateLimit(key = "#userId")} method called through its Spring proxy; (e) the
 * same with {@code ratelimit.pipelining.enabled=false}, to show what the pipelining adds.
 */
final class AnnotatedContender implements Contender {

    private final AnnotatedService service;
    private final boolean pipelining;

    AnnotatedContender(AnnotatedService service, boolean pipelining) {
        this.service = service;
        this.pipelining = pipelining;
    }

    @Override
    public String id() {
        return pipelining ? "b" : "e";
    }

    @Override
    public String description() {
        return pipelining
                ? "`@RateLimit(key = \"#userId\")` method through the Spring proxy (this project, default settings)"
                : "the same as (b) with `ratelimit.pipelining.enabled=false`: every decision its own round trip "
                        + "(reference, no goal)";
    }

    @Override
    public boolean decide(int user) {
        try {
            service.decide(Users.id(user));
            return true;
        }
        catch (RateLimitExceededException ex) {
            return false;
        }
    }
}
