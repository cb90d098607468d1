package io.github.redissonratelimit.redis.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.naming.KeyStyle;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.operation.LimitOverride;

/** How {@link RedissonRateLimiters} finds a limit's keys and stores overrides: pure text, no Redis. */
class RateLimitersKeysTest {

    @Test
    void theLiteralBeginningOfAKeyExpression() {
        assertThat(RedissonRateLimiters.literalPrefix("'order:submit:' + #userId")).isEqualTo("order:submit:");
        assertThat(RedissonRateLimiters.literalPrefix("'order:' + 'submit:' + #userId + ':x'"))
                .isEqualTo("order:submit:");
        assertThat(RedissonRateLimiters.literalPrefix("'fixed'")).isEqualTo("fixed");
        assertThat(RedissonRateLimiters.literalPrefix("#userId")).isEmpty();
        assertThat(RedissonRateLimiters.literalPrefix("#userId + ':orders'")).isEmpty();
        assertThat(RedissonRateLimiters.literalPrefix("@tenants.current() + ':' + #id")).isEmpty();
        assertThat(RedissonRateLimiters.literalPrefix("'a{b}' + #id")).isEqualTo("a{b}");
    }

    @Test
    void patternsAndLimiterNamesOfTheHashTagLayout() {
        LimiterNaming naming = new LimiterNaming();

        assertThat(naming.limiterNamePrefix("order:")).isEqualTo("rate_limit:{order:");
        assertThat(naming.keyPatterns("order:")).containsExactly("rate_limit:{order:*");
        assertThat(naming.keyPatterns("a*b{")).containsExactly("rate_limit:{a\\*b%7B*");
        assertThat(naming.keyPatterns("")).containsExactly("rate_limit:{*");
        assertThat(naming.limiterNameOf("rate_limit:{order:42}")).isEqualTo("rate_limit:{order:42}");
        assertThat(naming.limiterNameOf("rate_limit:{order:42}:value")).isEqualTo("rate_limit:{order:42}");
        assertThat(naming.limiterNameOf("rate_limit:{order:42}:permits:client-1")).isEqualTo("rate_limit:{order:42}");
        assertThat(naming.limiterNameOf("rate_limit:{order:42}:other")).isNull();
        assertThat(naming.limiterNameOf("rate_limit:%overrides")).isNull();
        assertThat(naming.limiterNameOf("{order:42}:value")).isNull();
    }

    @Test
    void patternsAndLimiterNamesOfThePlainLayout() {
        LimiterNaming naming = new LimiterNaming("rate_limit:", 200, KeyStyle.PLAIN);

        assertThat(naming.keyPatterns("order:")).containsExactly("rate_limit:order:*", "{rate_limit:order:*");
        assertThat(naming.limiterNameOf("rate_limit:order:42")).isEqualTo("rate_limit:order:42");
        assertThat(naming.limiterNameOf("{rate_limit:order:42}:value")).isEqualTo("rate_limit:order:42");
        assertThat(naming.limiterNameOf("{rate_limit:order:42}:lock")).isNull();
    }

    @Test
    void aLongBeginningIsCutWhereLongKeysAreCut() {
        LimiterNaming naming = new LimiterNaming("p:", 51);
        String longKey = "x".repeat(60);

        assertThat(naming.limiterName(longKey)).startsWith(naming.limiterNamePrefix(longKey));
    }

    @Test
    void overridesAreStoredAsOneLine() {
        LimitOverride override = new LimitOverride("order-submit", 10, Duration.ofSeconds(30), 2L, "alice smith",
                Instant.ofEpochMilli(1_700_000_000_000L));

        String stored = RedissonRateLimiters.encode(override);

        assertThat(stored).isEqualTo("10 30000 2 1700000000000 alice smith");
        assertThat(RedissonRateLimiters.decode("order-submit", stored)).isEqualTo(override);
        LimitOverride byCode = new LimitOverride("x", 1, Duration.ofMillis(500), null, null, Instant.EPOCH);
        assertThat(RedissonRateLimiters.decode("x", RedissonRateLimiters.encode(byCode))).isEqualTo(byCode);
    }
}
