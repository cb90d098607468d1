package io.github.redissonratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.aop.support.AopUtils;
import org.springframework.aot.generate.GeneratedFiles.Kind;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.RateLimitProperties;
import io.github.redissonratelimit.key.KeyExpressionRoot;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * The sample's context processed ahead of time, as {@code spring-boot:process-aot} and a native build do: the
 * generated code is compiled and run, and the hints a native image needs are there.
 */
@ExtendWith(RealRedisExtension.class)
@CompileWithForkedClassLoader
class SampleApplicationAotTest {

    @Test
    void processesAheadOfTimeAndRunsFromTheGeneratedCode(RedisEndpoint redis) {
        redis.flushAll();
        TestGenerationContext generationContext = new TestGenerationContext(SampleApplication.class);
        ClassName initializer;
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            redisProperties(context, redis);
            context.register(SampleApplication.class);
            initializer = new ApplicationContextAotGenerator().processAheadOfTime(context, generationContext);
        }
        generationContext.writeGeneratedContent();

        RuntimeHints hints = generationContext.getRuntimeHints();
        assertThat(RuntimeHintsPredicates.reflection().onType(RateLimit.class)
                .withMemberCategory(MemberCategory.INVOKE_DECLARED_METHODS)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethod(KeyExpressionRoot.class, "getMethodName").invoke())
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethod(RateLimitProperties.class, "setKeyPrefix").invoke())
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethod(OrderController.class, "submit").invoke())
                .accepts(hints);
        assertThat(generationContext.getGeneratedFiles().getGeneratedFiles(Kind.SOURCE)).containsKey(
                "io/github/redissonratelimit/autoconfigure/RateLimitAutoConfiguration__BeanDefinitions.java");

        TestCompiler.forSystem().with(generationContext).compile(compiled -> {
            try (GenericApplicationContext aotContext = new GenericApplicationContext()) {
                redisProperties(aotContext, redis);
                @SuppressWarnings("unchecked")
                ApplicationContextInitializer<GenericApplicationContext> generated =
                        compiled.getInstance(ApplicationContextInitializer.class, initializer.reflectionName());
                generated.initialize(aotContext);
                aotContext.refresh();

                OrderController orders = aotContext.getBean(OrderController.class);
                assertThat(AopUtils.isAopProxy(orders)).isTrue();
                for (int i = 0; i < 5; i++) {
                    assertThat(orders.submit("aot")).containsEntry("status", "ACCEPTED");
                }
                assertThatThrownBy(() -> orders.submit("aot")).isInstanceOf(RateLimitExceededException.class)
                        .hasMessage("You can submit at most 5 orders per minute");
            }
        });
    }

    private static void redisProperties(GenericApplicationContext context, RedisEndpoint redis) {
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("testRedis",
                Map.of("spring.data.redis.host", redis.host(), "spring.data.redis.port", redis.port(),
                        "ratelimit.backend-timeout", "5s"))); // counts grants: no outage policy on a loaded machine
    }
}
