package io.github.redissonratelimit.naming;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;
import java.util.Objects;

/**
 * Turns a logical key ({@code order:submit:42}) into a limiter name in Redis:
 * {@code <prefix>{<escaped key>}}, or {@code <prefix><escaped key>} with {@link KeyStyle#PLAIN}.
 *
 * <ul>
 * <li>The braces make the key a Redis Cluster hash tag, so the config hash and RRateLimiter's
 * {@code :value} and {@code :permits} keys of one limiter always share a slot.</li>
 * <li>Braces, {@code %}, spaces and control characters in the key are percent-encoded, so user input
 * can neither break the hash tag nor collide with another key.</li>
 * <li>An escaped key longer than {@code maxKeyLength} is cut to its first part plus {@code ~} and the
 * URL-safe Base64 SHA-256 of the whole key: stable and bounded.</li>
 * </ul>
 *
 * <p>Around a limiter {@code name}, RRateLimiter's data model keeps the config hash {@code name}, the free
 * permits {@link #valueKey {name}:value} and the grants {@link #permitsKey {name}:permits} (PER_CLIENT adds
 * {@code :<client id>}, {@link #clientKey}). Redisson wraps a name without braces in a hash tag; names built
 * here with {@link KeyStyle#HASH_TAG} carry one already, so the suffix is appended. This class is the one place
 * that knows this layout.
 */
public final class LimiterNaming {

    public static final String DEFAULT_PREFIX = "rate_limit:";
    public static final int DEFAULT_MAX_KEY_LENGTH = 200;

    /** {@code rate_limit:{<key>}}, keys up to {@value #DEFAULT_MAX_KEY_LENGTH} characters. */
    public static final LimiterNaming DEFAULT = new LimiterNaming();
    private static final int DIGEST_LENGTH = 43;

    private final String prefix;
    private final int maxKeyLength;
    private final KeyStyle style;

    public LimiterNaming() {
        this(DEFAULT_PREFIX, DEFAULT_MAX_KEY_LENGTH);
    }

    public LimiterNaming(String prefix, int maxKeyLength) {
        this(prefix, maxKeyLength, KeyStyle.HASH_TAG);
    }

    /**
     * @param style {@link KeyStyle#HASH_TAG} for {@code <prefix>{<key>}}, {@link KeyStyle#PLAIN} for
     * {@code <prefix><key>} (the names of {@code redisson.getRateLimiter(prefix + key)})
     */
    public LimiterNaming(String prefix, int maxKeyLength, KeyStyle style) {
        Objects.requireNonNull(prefix, "prefix");
        this.style = Objects.requireNonNull(style, "style");
        if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("The key prefix must not contain '{' or '}' (it would take over "
                    + "the Redis Cluster hash tag) but was '" + prefix + "'");
        }
        if (maxKeyLength < DIGEST_LENGTH + 8) {
            throw new IllegalArgumentException("The maximum key length must be at least " + (DIGEST_LENGTH + 8)
                    + " but was " + maxKeyLength);
        }
        this.prefix = prefix;
        this.maxKeyLength = maxKeyLength;
    }

    public String prefix() {
        return prefix;
    }

    public KeyStyle style() {
        return style;
    }

    /** The RRateLimiter name for {@code logicalKey}. */
    public String limiterName(String logicalKey) {
        String escaped = escape(logicalKey);
        if (escaped.length() > maxKeyLength) {
            escaped = escaped.substring(0, maxKeyLength - DIGEST_LENGTH - 1) + "~" + digest(logicalKey);
        }
        return style == KeyStyle.PLAIN ? prefix + escaped : prefix + "{" + escaped + "}";
    }

    /**
     * The beginning shared by the limiter names of every logical key that starts with {@code logicalKeyPrefix}
     * ({@code rate_limit:{order:submit:} for {@code order:submit:}); the names of keys too long to keep whole keep
     * this beginning as long as it fits before their digest.
     */
    public String limiterNamePrefix(String logicalKeyPrefix) {
        String escaped = escape(logicalKeyPrefix);
        int kept = maxKeyLength - DIGEST_LENGTH - 1;
        if (escaped.length() > kept) {
            escaped = escaped.substring(0, kept);
        }
        return style == KeyStyle.PLAIN ? prefix + escaped : prefix + "{" + escaped;
    }

    /**
     * {@code SCAN} patterns that match every Redis key (config hash, {@code :value}, {@code :permits} and their
     * PER_CLIENT forms) of every limiter whose logical key starts with {@code logicalKeyPrefix} ({@code ""}: every
     * limiter of this prefix); they may match other keys too, which {@link #limiterNameOf(String)} tells apart.
     */
    public List<String> keyPatterns(String logicalKeyPrefix) {
        String name = glob(limiterNamePrefix(logicalKeyPrefix));
        return style == KeyStyle.PLAIN ? List.of(name + "*", "{" + name + "*") : List.of(name + "*");
    }

    /**
     * The limiter a Redis key belongs to: {@code rate_limit:{order:submit:42}} for that name itself and for its
     * {@code :value}, {@code :permits} and PER_CLIENT keys; {@code null} for a key of another layout. With
     * {@link KeyStyle#PLAIN} every key that starts with the prefix is taken for a config hash.
     */
    public String limiterNameOf(String redisKey) {
        if (style == KeyStyle.PLAIN) {
            if (redisKey.startsWith("{" + prefix)) {
                int close = redisKey.indexOf('}');
                return close > 0 && isLimiterSuffix(redisKey.substring(close + 1)) ? redisKey.substring(1, close) : null;
            }
            return redisKey.startsWith(prefix) && redisKey.indexOf('{') < 0 ? redisKey : null;
        }
        if (!redisKey.startsWith(prefix + "{")) {
            return null;
        }
        int close = redisKey.indexOf('}', prefix.length() + 2);
        return close > 0 && isLimiterSuffix(redisKey.substring(close + 1)) ? redisKey.substring(0, close + 1) : null;
    }

    private static boolean isLimiterSuffix(String rest) {
        return rest.isEmpty() || rest.equals(":value") || rest.equals(":permits") || rest.startsWith(":value:")
                || rest.startsWith(":permits:");
    }

    /** {@code text} as a literal in a Redis glob pattern. */
    public static String glob(String text) {
        StringBuilder out = new StringBuilder(text.length() + 4);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                out.append('\\');
            }
            out.append(c);
        }
        return out.toString();
    }

    /**
     * Percent-encodes, one {@code %XX} per UTF-8 byte: braces, {@code %}, space, the C0 controls, DEL, the C1
     * controls (U+0080–U+009F) and the bidi overrides and isolates (U+202A–U+202E, U+2066–U+2069); so a line
     * feed is {@code %0A}, U+0085 is {@code %C2%85} and U+202E is {@code %E2%80%AE}.
     */
    static String escape(String key) {
        StringBuilder out = null;
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            boolean plain = c > ' ' && c != 0x7f && c != '{' && c != '}' && c != '%' && !(c >= 0x80 && c <= 0x9f)
                    && !(c >= 0x202a && c <= 0x202e) && !(c >= 0x2066 && c <= 0x2069);
            if (plain) {
                if (out != null) {
                    out.append(c);
                }
                continue;
            }
            if (out == null) {
                out = new StringBuilder(key.length() + 8).append(key, 0, i);
            }
            if (c < 0x80) {
                percent(out, c);
            }
            else if (c < 0x800) {
                percent(out, 0xC0 | c >> 6);
                percent(out, 0x80 | c & 0x3F);
            }
            else {
                percent(out, 0xE0 | c >> 12);
                percent(out, 0x80 | c >> 6 & 0x3F);
                percent(out, 0x80 | c & 0x3F);
            }
        }
        return out == null ? key : out.toString();
    }

    private static void percent(StringBuilder out, int octet) {
        out.append('%').append(Character.toUpperCase(Character.forDigit(octet >> 4 & 0xF, 16)))
                .append(Character.toUpperCase(Character.forDigit(octet & 0xF, 16)));
    }

    private static String digest(String key) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(hash);
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-256 is required by every JRE", ex);
        }
    }

    /** The free-permits counter of the limiter {@code name}. */
    public static String valueKey(String name) {
        return suffix(name, "value");
    }

    /** The grants of the limiter {@code name}, one ZSET member per grant. */
    public static String permitsKey(String name) {
        return suffix(name, "permits");
    }

    /** The PER_CLIENT form of a {@link #valueKey} or {@link #permitsKey}, for the Redisson instance {@code clientId}. */
    public static String clientKey(String key, String clientId) {
        return key + ":" + clientId;
    }

    /**
     * The Redis Cluster hash slot of every key of the limiter {@code name}: CRC16 (XMODEM) of its hash tag, or of
     * the whole name when it has none (Redisson then wraps it in one for the {@code :value} and {@code :permits}
     * keys), modulo 16384.
     */
    public static int slotOf(String name) {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        int from = 0;
        int to = bytes.length;
        int open = indexOf(bytes, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(bytes, (byte) '}', open + 1);
            if (close > open + 1) {
                from = open + 1;
                to = close;
            }
        }
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (bytes[i] & 0xFF) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? crc << 1 ^ 0x1021 : crc << 1;
            }
        }
        return (crc & 0xFFFF) % 16384;
    }

    private static int indexOf(byte[] bytes, byte wanted, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == wanted) {
                return i;
            }
        }
        return -1;
    }

    private static String suffix(String name, String suffix) {
        return name.contains("{") ? name + ":" + suffix : "{" + name + "}:" + suffix;
    }
}
