package io.github.redissonratelimit.compat.redisson3;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.redisson.api.RScript;

import io.github.redissonratelimit.redis.RedissonCompatibility;

/** Fails when the module's tests did not run on the Redisson its pom pins (a dependency mediated away, say). */
class RedissonOnTheClassPathTest {

    @Test
    void theTestsRunOnThePinnedRedisson() {
        String expected = System.getProperty("compat.expected-redisson-version");
        assertThat(expected).as("set by the module's pom").startsWith("3.");
        assertThat(RedissonCompatibility.version(getClass().getClassLoader())).isEqualTo(expected);
        assertThat(RScript.class.getPackage().getImplementationVersion()).isEqualTo(expected);
        assertThat(RedissonCompatibility.check()).isEqualTo(expected);
    }

    @Test
    void itsScriptReplyTypesHaveTheirRedisson3Names() {
        // what made every call fail with NoSuchFieldError: LONG before the names were looked up at run time
        assertThat(Arrays.stream(RScript.ReturnType.values()).map(Enum::name)).contains("INTEGER", "MULTI");
    }
}
