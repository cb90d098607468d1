package io.github.redissonratelimit.operation;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

import io.github.redissonratelimit.InvalidRateLimitException;

/** Parses {@code PT1M}, {@code 500ms}, {@code 60s}, {@code 1m}, {@code 2h}, {@code 1d}. */
final class DurationText {

    private DurationText() {
    }

    /**
     * @param method how the error names the limited method
     * @param examples what to write instead, e.g. {@code "500ms", "2s" or "PT1S"}
     * @throws InvalidRateLimitException naming the attribute when the text is not a duration
     */
    static Duration parseAttribute(String text, String attribute, String method, String examples) {
        try {
            return parse(text);
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidRateLimitException(method, attribute, ex.getMessage(), "write a duration such as "
                    + examples, ex);
        }
    }

    static Duration parse(String text) {
        String value = text.trim().toLowerCase(Locale.ROOT);
        if (value.startsWith("p")) {
            try {
                return Duration.parse(text.trim());
            }
            catch (DateTimeParseException ex) {
                throw new IllegalArgumentException("'" + text + "' is not an ISO-8601 duration", ex);
            }
        }
        int unitStart = 0;
        while (unitStart < value.length() && Character.isDigit(value.charAt(unitStart))) {
            unitStart++;
        }
        if (unitStart == 0 || unitStart > 18) {
            throw new IllegalArgumentException("'" + text + "' is not a duration such as 500ms, 60s, 1m, 2h, 1d or PT1M");
        }
        long amount = Long.parseLong(value.substring(0, unitStart));
        switch (value.substring(unitStart)) {
            case "ms":
                return Duration.ofMillis(amount);
            case "s":
            case "":
                return Duration.ofSeconds(amount);
            case "m":
                return Duration.ofMinutes(amount);
            case "h":
                return Duration.ofHours(amount);
            case "d":
                return Duration.ofDays(amount);
            default:
                throw new IllegalArgumentException("'" + text + "' has an unknown unit; use ms, s, m, h or d");
        }
    }
}
