package io.github.redissonratelimit.key;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

class LimiterNamingTest {

    private final LimiterNaming naming = new LimiterNaming();

    @Test
    void wrapsTheKeyInAHashTagAfterThePrefix() {
        assertThat(naming.limiterName("order:submit:42")).isEqualTo("rate_limit:{order:submit:42}");
        assertThat(new LimiterNaming("app1:", 200).limiterName("k")).isEqualTo("app1:{k}");
    }

    @Test
    void escapesBracesPercentWhitespaceAndControlCharacters() {
        assertThat(naming.limiterName("a{b}c")).isEqualTo("rate_limit:{a%7Bb%7Dc}");
        assertThat(naming.limiterName("50% off")).isEqualTo("rate_limit:{50%25%20off}");
        assertThat(naming.limiterName("line\nbreak\t")).isEqualTo("rate_limit:{line%0Abreak%09}");
        assertThat(naming.limiterName("üser")).isEqualTo("rate_limit:{üser}");
    }

    @Test
    void escapingIsInjective() {
        assertThat(naming.limiterName("a{b")).isNotEqualTo(naming.limiterName("a%7Bb"));
    }

    @Test
    void boundsLongKeysWithAStableDigest() {
        String huge = "x".repeat(10_000);
        String name = naming.limiterName(huge);

        assertThat(name).hasSize("rate_limit:{".length() + LimiterNaming.DEFAULT_MAX_KEY_LENGTH + 1);
        assertThat(name).isEqualTo(naming.limiterName(huge));
        assertThat(name).isNotEqualTo(naming.limiterName(huge + "y"));
        assertThat(name).endsWith("}").contains("~");
    }

    @Test
    void rejectsAPrefixThatWouldBreakTheHashTag() {
        assertThatIllegalArgumentException().isThrownBy(() -> new LimiterNaming("a{b}:", 200))
                .withMessageContaining("'{' or '}'");
    }
}
