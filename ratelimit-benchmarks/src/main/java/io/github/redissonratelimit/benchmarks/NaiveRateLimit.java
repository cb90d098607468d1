package io.github.redissonratelimit.benchmarks;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** The annotation of the hand-rolled aspect that blog posts show (contender c). */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
public @interface NaiveRateLimit {

    String key();

    long rate();

    /** Seconds. */
    long interval();
}
