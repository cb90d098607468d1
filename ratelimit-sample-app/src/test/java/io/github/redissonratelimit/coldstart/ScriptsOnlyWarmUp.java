package io.github.redissonratelimit.coldstart;

import java.time.Duration;

import org.redisson.api.RedissonClient;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.redissonratelimit.autoconfigure.RateLimitScriptWarmUp;

/**
 * The warm-up as it was before the decisions were added (scripts and eviction policy only), for comparing cold
 * starts: {@code -Dcoldstart.scripts-only=true} adds it to the application that {@link ColdStartBurstTest} starts.
 */
@Configuration(proxyBeanMethods = false)
public class ScriptsOnlyWarmUp {

    @Bean
    RateLimitScriptWarmUp rateLimitScriptWarmUp(RedissonClient redissonClient) {
        return new RateLimitScriptWarmUp(redissonClient, Duration.ofSeconds(5));
    }
}
