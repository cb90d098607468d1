package io.github.redissonratelimit.autoconfigure.web;

import java.util.List;
import java.util.stream.Stream;

import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.http.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.WebMvcAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * A Spring MVC application with the starter's auto-configuration on the test Redis, for MockMvc tests, with a
 * backend timeout long enough for a loaded machine.
 */
final class MvcOnRedis {

    private MvcOnRedis() {
    }

    /** @param more auto-configurations besides the starter's and Spring MVC's, e.g. metrics */
    static WebApplicationContextRunner runner(RedisEndpoint redis, Class<?>... more) {
        List<Class<?>> configurations = Stream.concat(Stream.of(RateLimitAutoConfiguration.class,
                RateLimitWebMvcAutoConfiguration.class, AopAutoConfiguration.class, WebMvcAutoConfiguration.class,
                JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class), Stream.of(more)).toList();
        return new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(configurations.toArray(Class<?>[]::new)))
                .withBean(RedissonClient.class, redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown"))
                // a busy test machine must not turn a slow decision into a pass without headers
                .withPropertyValues("ratelimit.backend-timeout=5s");
    }
}
