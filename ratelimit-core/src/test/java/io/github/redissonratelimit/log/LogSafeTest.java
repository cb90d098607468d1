package io.github.redissonratelimit.log;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogSafeTest {

    @Test
    void keepsOrdinaryTextAsItIs() {
        String key = "order:submit:42 üser ß \\ \" {x} 50%";
        assertThat(LogSafe.text(key)).isSameAs(key);
        assertThat(LogSafe.text(null)).isEqualTo("null");
    }

    @Test
    void lineBreaksCannotStartALogLineOfTheirOwn() {
        String forged = "x\n2026-12-03T10:00:00.000Z ERROR 1 --- [main] c.e.Payments : FORGED\r\nmore";
        String escaped = LogSafe.text(forged);
        assertThat(escaped).doesNotContain("\n", "\r")
                .isEqualTo("x\\n2026-12-03T10:00:00.000Z ERROR 1 --- [main] c.e.Payments : FORGED\\r\\nmore");
    }

    @Test
    void controlsAnsiEscapesAndBidiOverridesAreEscaped() {
        assertThat(LogSafe.text("\u001B[31mred\u001B[0m")).isEqualTo("\\u001B[31mred\\u001B[0m");
        assertThat(LogSafe.text("a\u0000b\tc\u007F")).isEqualTo("a\\u0000b\\tc\\u007F");
        assertThat(LogSafe.text("nel\u0085csi\u009B2J")).isEqualTo("nel\\u0085csi\\u009B2J");
        assertThat(LogSafe.text("user\u202Egnp.exe")).isEqualTo("user\\u202Egnp.exe");
        assertThat(LogSafe.text("\u202A\u202B\u202C\u202D\u2066\u2067\u2068\u2069"))
                .isEqualTo("\\u202A\\u202B\\u202C\\u202D\\u2066\\u2067\\u2068\\u2069");
        assertThat(LogSafe.text("line\u2028para\u2029")).isEqualTo("line\\u2028para\\u2029");
        // neighbours that are not controls stay
        assertThat(LogSafe.text("\u00A0\u00E9\u2029x\u202F\u2070")).isEqualTo("\u00A0\u00E9\\u2029x\u202F\u2070");
    }

    @Test
    void noEscapedCharacterSurvivesAndEscapingTwiceChangesNothing() {
        StringBuilder everyChar = new StringBuilder();
        for (char c = 0; c < 0x3000; c++) {
            everyChar.append(c);
        }
        String once = LogSafe.text(everyChar.substring(0, LogSafe.MAX_LENGTH));
        assertThat(once.chars().filter(c -> LogSafe.needsEscape((char) c))).isEmpty();
        String shorter = LogSafe.text(everyChar.substring(0, 300)); // escaped, still within MAX_LENGTH
        assertThat(shorter.length()).isLessThan(LogSafe.MAX_LENGTH);
        assertThat(LogSafe.text(shorter)).isEqualTo(shorter);
        String bidi = LogSafe.text(everyChar.substring(0x2000, 0x2000 + LogSafe.MAX_LENGTH));
        assertThat(bidi.chars().filter(c -> LogSafe.needsEscape((char) c))).isEmpty();
    }

    @Test
    void longTextIsCutAndSaysHowMuchWasLeftOut() {
        String huge = "u".repeat(100_000);
        assertThat(LogSafe.text(huge)).hasSize(LogSafe.MAX_LENGTH + "...(99000 more chars)".length())
                .endsWith("u...(99000 more chars)");
        assertThat(LogSafe.text("\n".repeat(2_000))).startsWith("\\n\\n").endsWith("\\n...(1000 more chars)")
                .doesNotContain("\n");
    }
}
