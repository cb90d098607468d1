package io.github.redissonratelimit.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.redissonratelimit.autoconfigure.NoRedis;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;

/** When the {@code ratelimits} endpoint exists; no Redis. What it answers is in {@link RateLimitsEndpointTest}. */
class RateLimitEndpointAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                    RateLimitEndpointAutoConfiguration.class))
            .withBean(RedissonClient.class, NoRedis::redissonClient);

    @Test
    void theEndpointBeanExistsWhenActuatorIsPresent() {
        runner.run(context -> assertThat(context).hasSingleBean(RateLimitsEndpoint.class));
    }

    @Test
    void noEndpointWithoutActuatorOrWithoutRateLimiting() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate")).run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitsEndpoint.class));
        runner.withPropertyValues("ratelimit.enabled=false").run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitsEndpoint.class));
    }
}
