package io.github.redissonratelimit.autoconfigure.diagnostics;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.RateLimiterUnavailableException;

/**
 * When rate limiting is enabled but there is no {@code RedissonClient} bean (so that
 * {@link RateLimitAutoConfiguration} backs off), fails startup with {@link RateLimiterUnavailableException} if the
 * application declares any limit, instead of letting every {@code @RateLimit} silently do nothing. Ordered, like
 * {@link RateLimitAutoConfiguration}, after every auto-configuration of Redisson's starter that may create the client.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class, afterName = {
        "org.redisson.spring.starter.RedissonAutoConfiguration",
        "org.redisson.spring.starter.RedissonAutoConfigurationV2",
        "org.redisson.spring.starter.RedissonAutoConfigurationV4" })
@ConditionalOnMissingBean(type = "org.redisson.api.RedissonClient")
@ConditionalOnProperty(prefix = "ratelimit", name = "enabled", havingValue = "true", matchIfMissing = true)
public final class NoRedissonClientAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    DeclaredLimitsWithoutLimiterCheck rateLimitDeclaredLimitsWithoutLimiterCheck() {
        return new DeclaredLimitsWithoutLimiterCheck();
    }
}
