package io.github.redissonratelimit.benchmarks;

import java.util.concurrent.atomic.AtomicLong;

/**
 * (g) This project with a new user on every call: each decision is the first for its limiter, in Redis and in
 * the JVM (the application a million users a day meet), so its acquire also writes the declared config.
 */
final class NewUserContender implements Contender {

    private final AnnotatedService service;
    private final AtomicLong users = new AtomicLong();

    NewUserContender(AnnotatedService service) {
        this.service = service;
    }

    @Override
    public String id() {
        return "g";
    }

    @Override
    public String description() {
        return "the same as (b) with a new user on every call: every decision is a limiter's first, in Redis and in "
                + "the JVM (its own application context, default settings)";
    }

    @Override
    public boolean decide(int user) {
        return AnnotatedContender.allowed(() -> service.decide("new-" + users.incrementAndGet()));
    }

    /** How many distinct users (limiters) it has decided for. */
    long users() {
        return users.get();
    }
}
