package io.github.redissonratelimit.autoconfigure;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

import io.github.redissonratelimit.InvalidRateLimitException;
import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitConditionException;
import io.github.redissonratelimit.RateLimitEvaluationException;
import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.RateLimitKeyException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.key.KeyExpressionRoot;
import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * What a GraalVM native image needs to keep for {@code @RateLimit}, beyond what Spring AOT derives from the
 * bean definitions (proxies, bean factories). The annotated methods and the composed annotations found on
 * beans are added per bean by
 * {@link io.github.redissonratelimit.autoconfigure.aot.RateLimitBeanRegistrationAotProcessor}. Imported by
 * {@link RateLimitAutoConfiguration}, beside which it lives so that the configuration does not depend on the
 * {@code aot} package (which depends on nothing here).
 */
public class RateLimitRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        ReflectionHints reflection = hints.reflection();
        // MergedAnnotations reads attribute values by invoking the annotation's methods
        reflection.registerType(RateLimit.class, MemberCategory.INVOKE_DECLARED_METHODS);
        // #root.methodName, #root.args, #root.targetClass: SpEL's reflective property accessor calls the getters
        reflection.registerType(KeyExpressionRoot.class, MemberCategory.INVOKE_PUBLIC_METHODS);
        // the exceptions' getters are what error handlers, templates and JSON serializers read
        reflection.registerType(RateLimitExceededException.class, MemberCategory.INVOKE_PUBLIC_METHODS);
        reflection.registerType(RateLimitBackendUnavailableException.class, MemberCategory.INVOKE_PUBLIC_METHODS);
        reflection.registerType(LimitSpec.class, MemberCategory.INVOKE_PUBLIC_METHODS);
        // the getters both share are declared by their base: registering a subclass does not reach them
        reflection.registerType(RateLimitEvaluationException.class, MemberCategory.INVOKE_PUBLIC_METHODS);
        reflection.registerType(RateLimitKeyException.class, MemberCategory.INVOKE_PUBLIC_METHODS);
        reflection.registerType(RateLimitConditionException.class, MemberCategory.INVOKE_PUBLIC_METHODS);
        reflection.registerType(InvalidRateLimitException.class, MemberCategory.INVOKE_PUBLIC_METHODS);
        // the Redis backend's Lua scripts are class path resources, read once when the backend is first used
        hints.resources().registerPattern("META-INF/scripts/redisson-ratelimit/*.lua");
        // ratelimit.* binds through the JavaBean setters (Boot also derives this when it processes the bean)
        BindableRuntimeHintsRegistrar.forTypes(RateLimitProperties.class).registerHints(hints, classLoader);
    }
}
