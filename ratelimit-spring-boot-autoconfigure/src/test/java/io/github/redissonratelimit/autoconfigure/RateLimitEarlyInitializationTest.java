package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.github.redissonratelimit.interceptor.RateLimitAdvisor;

/**
 * A bean post-processor declared by the application (Spring Data's web support declares one) makes the auto-proxy
 * creator look up advisors while post-processors are still being registered: our advisor must then not drag
 * ordinary beans such as the properties into early creation.
 */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitEarlyInitializationTest {

    static class ApplicationPostProcessor implements BeanPostProcessor {
    }

    @Test
    void advisorDoesNotCreateOrdinaryBeansWhilePostProcessorsAreRegistered(CapturedOutput output) {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, AopAutoConfiguration.class))
                .withBean(RedissonClient.class, NoRedis::redissonClient)
                .withBean(ApplicationPostProcessor.class)
                .withPropertyValues("ratelimit.order=5")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(RateLimitAdvisor.class).getOrder()).isEqualTo(5);
                });
        assertThat(output).doesNotContain("is not eligible for getting processed by all BeanPostProcessors");
    }
}
