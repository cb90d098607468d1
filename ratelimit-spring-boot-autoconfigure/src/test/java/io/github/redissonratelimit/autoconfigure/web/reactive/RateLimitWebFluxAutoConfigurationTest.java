package io.github.redissonratelimit.autoconfigure.web.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.http.codec.CodecsAutoConfiguration;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.boot.autoconfigure.web.reactive.WebFluxAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;

import io.github.redissonratelimit.autoconfigure.NoRedis;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.web.RateLimitProblemHandler;
import io.github.redissonratelimit.autoconfigure.web.RateLimitWebMvcAutoConfiguration;

/** When the WebFlux problem handler and headers exist; no Redis. What they answer is in {@link RateLimitWebFluxTest}. */
class RateLimitWebFluxAutoConfigurationTest {

    private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                    RateLimitWebFluxAutoConfiguration.class, RateLimitWebMvcAutoConfiguration.class,
                    AopAutoConfiguration.class, WebFluxAutoConfiguration.class, JacksonAutoConfiguration.class,
                    CodecsAutoConfiguration.class))
            .withBean(RedissonClient.class, NoRedis::redissonClient);

    @Test
    void theReactiveHandlerAndHeadersNotTheServletOnes() {
        runner.run(context -> assertThat(context).hasSingleBean(ReactiveRateLimitProblemHandler.class)
                .hasSingleBean(ReactiveRateLimitHeaders.class).doesNotHaveBean(RateLimitProblemHandler.class));
    }

    @Test
    void noHeadersWhenTurnedOff() {
        runner.withPropertyValues("ratelimit.headers.enabled=false").run(context ->
                assertThat(context).doesNotHaveBean(ReactiveRateLimitHeaders.class)
                        .hasSingleBean(ReactiveRateLimitProblemHandler.class));
    }
}
