package io.github.redissonratelimit.benchmarks;

import io.github.redissonratelimit.RateLimitExceededException;

/** (b) This project: an {@code @RateLimit(key = "#userId")} method called through its Spring proxy. */
final class AnnotatedContender implements Contender {

    private final AnnotatedService service;

    AnnotatedContender(AnnotatedService service) {
        this.service = service;
    }

    @Override
    public String id() {
        return "b";
    }

    @Override
    public String description() {
        return "`@RateLimit(key = \"#userId\")` method through the Spring proxy (this project, default settings)";
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
