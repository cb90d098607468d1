package io.github.redissonratelimit.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;

/**
 * A test class that must have the machine to itself: it loads the CPUs on purpose, or what it asserts depends on
 * deadlines that a busy machine misses. A module that runs its test classes in two JVMs at once (ratelimit-core)
 * runs the classes tagged {@value #TAG} afterwards, one at a time (the surefire execution {@code alone} of its pom).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Tag(RunsAlone.TAG)
public @interface RunsAlone {

    String TAG = "alone";
}
