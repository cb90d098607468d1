package io.github.redissonratelimit.naming;

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
    void escapesC1ControlsAndBidiOverridesAsUtf8Bytes() {
        assertThat(naming.limiterName("a\u0085b")).isEqualTo("rate_limit:{a%C2%85b}"); // NEL
        assertThat(naming.limiterName("\u009B31m")).isEqualTo("rate_limit:{%C2%9B31m}"); // 8-bit CSI
        assertThat(naming.limiterName("\u0080\u009F")).isEqualTo("rate_limit:{%C2%80%C2%9F}");
        assertThat(naming.limiterName("user\u202Egnp.exe")).isEqualTo("rate_limit:{user%E2%80%AEgnp.exe}");
        assertThat(naming.limiterName("\u202A\u2066\u2069")).isEqualTo("rate_limit:{%E2%80%AA%E2%81%A6%E2%81%A9}");
        assertThat(naming.limiterName("\u001B[31mred")).isEqualTo("rate_limit:{%1B[31mred}"); // ANSI escape
        // neighbours that are not controls stay as they are
        assertThat(naming.limiterName("\u00A0\u00E9\u2029\u202F\u2070")).isEqualTo("rate_limit:{\u00A0\u00E9\u2029\u202F\u2070}");
    }

    @Test
    void escapedNamesHoldNoCharacterALogMustNotShow() {
        StringBuilder everyBmpChar = new StringBuilder();
        for (char c = 0; c < 0xD800; c++) {
            everyBmpChar.append(c);
        }
        String escaped = LimiterNaming.escape(everyBmpChar.toString());
        assertThat(escaped.chars().filter(c -> io.github.redissonratelimit.log.LogSafe.needsEscape((char) c)
                && c != 0x2028 && c != 0x2029)).isEmpty();
    }

    @Test
    void escapingIsInjective() {
        assertThat(naming.limiterName("\u0085")).isNotEqualTo(naming.limiterName("%C2%85"));
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
