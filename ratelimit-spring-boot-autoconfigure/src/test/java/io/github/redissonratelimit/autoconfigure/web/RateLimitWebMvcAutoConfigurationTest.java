package io.github.redissonratelimit.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.http.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.WebMvcAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import io.github.redissonratelimit.autoconfigure.NoRedis;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;

/**
 * When the Spring MVC problem handler and headers exist; no Redis. What they answer is in
 * {@link RateLimitProblemHandlerTest} and {@link ServletRateLimitHeadersTest}.
 */
class RateLimitWebMvcAutoConfigurationTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                    RateLimitWebMvcAutoConfiguration.class, AopAutoConfiguration.class,
                    WebMvcAutoConfiguration.class, JacksonAutoConfiguration.class,
                    HttpMessageConvertersAutoConfiguration.class))
            .withBean(RedissonClient.class, NoRedis::redissonClient);

    @Test
    void aProblemHandlerAndHeadersInAServletApplication() {
        runner.run(context -> assertThat(context).hasSingleBean(RateLimitProblemHandler.class)
                .hasSingleBean(ServletRateLimitHeaders.class));
    }

    @Test
    void aUserHandlerReplacesOurs() {
        runner.withBean(RateLimitProblemHandler.class, CustomHandler::new).run(context ->
                assertThat(context).getBean(RateLimitProblemHandler.class).isInstanceOf(CustomHandler.class));
    }

    @Test
    void noHandlerOutsideAWebApplication() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                        RateLimitWebMvcAutoConfiguration.class))
                .withBean(RedissonClient.class, NoRedis::redissonClient)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitProblemHandler.class));
    }

    @Test
    void noHeadersWhenTurnedOff() {
        runner.withPropertyValues("ratelimit.headers.enabled=false").run(context ->
                assertThat(context).doesNotHaveBean(ServletRateLimitHeaders.class)
                        .hasSingleBean(RateLimitProblemHandler.class));
    }

    @Test
    void aHeaderNameThatIsNoTokenFailsStartup() {
        runner.withPropertyValues("ratelimit.headers.limit-header=Rate Limit").run(context ->
                assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("ratelimit.headers.limit-header must be an HTTP header name"));
    }

    static class CustomHandler extends RateLimitProblemHandler {
    }
}
