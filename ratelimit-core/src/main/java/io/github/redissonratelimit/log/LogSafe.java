package io.github.redissonratelimit.log;

/**
 * Makes text that may come from a request (keys, limiter names, exception messages that quote them, request
 * paths) safe to put in one log line: it can neither start a line of its own nor repaint or reorder what a
 * terminal or log viewer shows.
 *
 * <ul>
 * <li>{@code CR}, {@code LF} and {@code TAB} become {@code \r}, {@code \n}, {@code \t};</li>
 * <li>the other C0 controls (which include {@code ESC}, so every ANSI escape sequence), {@code DEL}, the C1
 * controls (U+0080–U+009F, which include {@code NEL} and the 8-bit {@code CSI}), the line and paragraph
 * separators (U+2028, U+2029) and the bidi overrides and isolates (U+202A–U+202E, U+2066–U+2069) become
 * {@code \}{@code uXXXX};</li>
 * <li>text longer than {@value #MAX_LENGTH} characters is cut there and ends with how much was left out.</li>
 * </ul>
 *
 * Everything else, including a backslash, is kept, so ordinary keys read as they are. The result holds none
 * of the characters above, so escaping it again changes nothing (unless escaping made it longer than
 * {@value #MAX_LENGTH}: then it is cut).
 */
public final class LogSafe {

    /** The longest text kept in a log line, in characters before escaping. */
    public static final int MAX_LENGTH = 1_000;

    private LogSafe() {
    }

    /** {@code value}'s {@code toString()} escaped for a log line; {@code "null"} for null. */
    public static String text(Object value) {
        String text = String.valueOf(value);
        int length = Math.min(text.length(), MAX_LENGTH);
        StringBuilder out = null;
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (!needsEscape(c)) {
                if (out != null) {
                    out.append(c);
                }
                continue;
            }
            if (out == null) {
                out = new StringBuilder(length + 16).append(text, 0, i);
            }
            switch (c) {
                case '\r' -> out.append("\\r");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                default -> out.append("\\u").append(String.format("%04X", (int) c));
            }
        }
        if (text.length() > MAX_LENGTH) {
            if (out == null) {
                out = new StringBuilder(MAX_LENGTH + 32).append(text, 0, MAX_LENGTH);
            }
            out.append("...(").append(text.length() - MAX_LENGTH).append(" more chars)");
        }
        return out == null ? text : out.toString();
    }

    /** Whether {@code c} is escaped by {@link #text}: C0, DEL, C1, U+2028/U+2029 and the bidi controls. */
    public static boolean needsEscape(char c) {
        return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x2028 || c == 0x2029
                || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
    }
}
