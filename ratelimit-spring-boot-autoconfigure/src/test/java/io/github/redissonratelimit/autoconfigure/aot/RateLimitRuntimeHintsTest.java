package io.github.redissonratelimit.autoconfigure.aot;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.ReflectionHintsPredicates;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.context.annotation.ImportRuntimeHints;

import io.github.redissonratelimit.InvalidRateLimitException;
import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.RateLimitKeyException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.RateLimitProperties;
import io.github.redissonratelimit.autoconfigure.RateLimitRuntimeHints;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.key.KeyExpressionRoot;
import io.github.redissonratelimit.limiter.LimitSpec;

class RateLimitRuntimeHintsTest {

    private final RuntimeHints hints = new RuntimeHints();

    private final ReflectionHintsPredicates reflection = RuntimeHintsPredicates.reflection();

    RateLimitRuntimeHintsTest() {
        new RateLimitRuntimeHints().registerHints(hints, getClass().getClassLoader());
    }

    @Test
    void theRedisBackendsScriptsAreIncluded() {
        for (String script : new String[] { "common", "acquire", "refund", "state" }) {
            String path = "META-INF/scripts/redisson-ratelimit/" + script + ".lua";
            assertThat(RuntimeHintsPredicates.resource().forResource(path)).as(path).accepts(hints);
            assertThat(getClass().getClassLoader().getResource(path)).as(path).isNotNull();
        }
    }

    @Test
    void annotationAttributesAreInvocable() {
        assertThat(reflection.onType(RateLimit.class).withMemberCategory(MemberCategory.INVOKE_DECLARED_METHODS))
                .accepts(hints);
    }

    @Test
    void keyExpressionRootIsReadableBySpel() {
        for (String getter : new String[] { "getMethodName", "getMethod", "getArgs", "getTarget", "getTargetClass",
                "args", "targetClass" }) {
            assertThat(reflection.onMethod(KeyExpressionRoot.class, getter).invoke()).accepts(hints);
        }
    }

    @Test
    void exceptionGettersAreInvocable() {
        assertThat(reflection.onMethod(RateLimitExceededException.class, "getRetryAfter").invoke()).accepts(hints);
        assertThat(reflection.onMethod(RateLimitExceededException.class, "getLimiterName").invoke()).accepts(hints);
        assertThat(reflection.onMethod(LimitSpec.class, "rate").invoke()).accepts(hints);
        assertThat(reflection.onMethod(RateLimitKeyException.class, "getExpression").invoke()).accepts(hints);
        assertThat(reflection.onMethod(InvalidRateLimitException.class, "getAttribute").invoke()).accepts(hints);
    }

    @Test
    void propertiesBindThroughTheirSetters() throws Exception {
        assertThat(reflection.onMethod(RateLimitProperties.class, "setKeyPrefix").invoke()).accepts(hints);
        assertThat(reflection.onMethod(RateLimitProperties.class, "setMaxKeyLength").invoke()).accepts(hints);
        assertThat(reflection.onConstructor(RateLimitProperties.class.getDeclaredConstructor()).invoke()).accepts(hints);
    }

    @Test
    void onlyOurTypesAreRegistered() {
        assertThat(reflection.onType(RateLimitInterceptor.class)).rejects(hints);
        assertThat(hints.reflection().typeHints()).allSatisfy(hint ->
                assertThat(hint.getType().getName()).startsWith("io.github.redissonratelimit."));
    }

    @Test
    void theAutoConfigurationImportsTheHintsAndTheProcessorIsAnAotService() {
        assertThat(RateLimitAutoConfiguration.class.getAnnotation(ImportRuntimeHints.class).value())
                .containsExactly(RateLimitRuntimeHints.class);
        assertThat(AotServices.factories().load(BeanRegistrationAotProcessor.class))
                .hasAtLeastOneElementOfType(RateLimitBeanRegistrationAotProcessor.class);
    }
}
