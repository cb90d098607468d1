package io.github.redissonratelimit.benchmarks;

import io.github.redissonratelimit.RateLimitExceededException;

/**
 * (b) This project: an {@code @RateLimit(key = "#userId")} method called through its Spring proxy; (e) the
 * same with {@code ratelimit.pipelining.enabled=false}, to show what the pipelining adds; (f) the same with
 * {@code ratelimit.clock=client}, to show what stamping grants with Redis's clock costs; (g) a new user on every
 * call; (h) a method with two limits.
 */
class AnnotatedContender implements Contender {

    private final AnnotatedService service;
    private final String id;
    private final String description;

    private AnnotatedContender(AnnotatedService service, String id, String description) {
        this.service = service;
        this.id = id;
        this.description = description;
    }

    static AnnotatedContender defaults(AnnotatedService service) {
        return new AnnotatedContender(service, "b",
                "`@RateLimit(key = \"#userId\")` method through the Spring proxy (this project, default settings)");
    }

    static AnnotatedContender withoutPipelining(AnnotatedService service) {
        return new AnnotatedContender(service, "e", "the same as (b) with `ratelimit.pipelining.enabled=false`: "
                + "every decision its own round trip (reference, no goal)");
    }

    static AnnotatedContender clientClock(AnnotatedService service) {
        return new AnnotatedContender(service, "f", "the same as (b) with `ratelimit.clock=client`: grants stamped "
                + "with the caller's clock instead of Redis's `TIME` (reference: what reading `TIME` costs)");
    }

    /** (h): a method with two limits, the user's and the region's. */
    static Contender twoLimits(AnnotatedService service) {
        return new AnnotatedContender(service, "h", "a method with two `@RateLimit` (the user's and one of 8 "
                + "regions'), both allowing: one decision = one call deciding both limits") {
            @Override
            public boolean decide(int user) {
                return allowed(() -> service.decideTwoLimits(Users.id(user), user % 8));
            }
        };
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public boolean decide(int user) {
        return allowed(() -> service.decide(Users.id(user)));
    }

    static boolean allowed(Runnable call) {
        try {
            call.run();
            return true;
        }
        catch (RateLimitExceededException ex) {
            return false;
        }
    }
}
