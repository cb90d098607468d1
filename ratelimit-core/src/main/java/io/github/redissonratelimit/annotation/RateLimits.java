package io.github.redissonratelimit.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Holds several {@link RateLimit} declarations on one element; written by the compiler when
 * {@code @RateLimit} is repeated, or by hand:
 *
 * <pre class="code">
 * &#64;RateLimit(key = "#userId", rate = 5, interval = 1)
 * &#64;RateLimit(key = "#userId", rate = 100, interval = 1, unit = TimeUnit.HOURS)
 * public Order submit(String userId) { ... }
 * </pre>
 */
@Target({ElementType.METHOD, ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RateLimits {

    RateLimit[] value();
}
