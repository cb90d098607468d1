package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.redis.LimiterNaming;

class RateLimitPropertiesTest {

    @Test
    void defaultsMatchTheCoreDefaults() {
        RateLimitProperties properties = new RateLimitProperties();
        assertThat(properties.getKeyPrefix()).isEqualTo(LimiterNaming.DEFAULT_PREFIX);
        assertThat(properties.getMaxKeyLength()).isEqualTo(LimiterNaming.DEFAULT_MAX_KEY_LENGTH);
    }
}
