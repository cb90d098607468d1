package io.github.redissonratelimit.compat.app;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.github.redissonratelimit.annotation.RateLimit;

/** {@link RateLimit} used as a meta-annotation; the key reads the first argument by index. */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@RateLimit(key = "'order:cancel:' + #p0", rate = 2, window = "1m", message = "Too many cancellations for this order")
public @interface CancellationLimit {
}
