package io.github.redissonratelimit.test.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every test of the annotated class (a {@code @SpringBootTest}, or any test with Spring's test context) starts
 * with every rate limit reset: before each test, the limiters under the application's key prefix are deleted in
 * Redis, every instance that shares that Redis forgets what it remembers of them (rejections answered from
 * memory), and the limits overridden at runtime go back to their configuration, unless {@link #keepOverrides()}.
 *
 * <pre class="code">
 * &#64;SpringBootTest
 * &#64;AutoConfigureMockMvc
 * &#64;ResetRateLimits
 * class OrderControllerTest { ... }
 * </pre>
 *
 * An application without the limiter ({@code ratelimit.enabled=false}) or without Redis is left alone.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(ResetRateLimitsExtension.class)
public @interface ResetRateLimits {

    /** {@code true} to keep the overrides ({@code RateLimiters.override}) from one test to the next. */
    boolean keepOverrides() default false;
}
