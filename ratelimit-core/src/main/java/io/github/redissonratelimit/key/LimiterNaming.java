package io.github.redissonratelimit.key;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Objects;

/**
 * Turns a logical key ({@code order:submit:42}) into a limiter name in Redis:
 * {@code <prefix>{<escaped key>}}.
 *
 * <ul>
 * <li>The braces make the key a Redis Cluster hash tag, so the config hash and RRateLimiter's
 * {@code :value} and {@code :permits} keys of one limiter always share a slot.</li>
 * <li>Braces, {@code %}, spaces and control characters in the key are percent-encoded, so user input
 * can neither break the hash tag nor collide with another key.</li>
 * <li>An escaped key longer than {@code maxKeyLength} is cut to its first part plus {@code ~} and the
 * URL-safe Base64 SHA-256 of the whole key: stable and bounded.</li>
 * </ul>
 */
public final class LimiterNaming {

    public static final String DEFAULT_PREFIX = "rate_limit:";
    public static final int DEFAULT_MAX_KEY_LENGTH = 200;
    private static final int DIGEST_LENGTH = 43;

    private final String prefix;
    private final int maxKeyLength;

    public LimiterNaming() {
        this(DEFAULT_PREFIX, DEFAULT_MAX_KEY_LENGTH);
    }

    public LimiterNaming(String prefix, int maxKeyLength) {
        Objects.requireNonNull(prefix, "prefix");
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

    /** The RRateLimiter name for {@code logicalKey}. */
    public String limiterName(String logicalKey) {
        String escaped = escape(logicalKey);
        if (escaped.length() > maxKeyLength) {
            escaped = escaped.substring(0, maxKeyLength - DIGEST_LENGTH - 1) + "~" + digest(logicalKey);
        }
        return prefix + "{" + escaped + "}";
    }

    static String escape(String key) {
        StringBuilder out = null;
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            boolean plain = c > ' ' && c != 0x7f && c != '{' && c != '}' && c != '%';
            if (plain) {
                if (out != null) {
                    out.append(c);
                }
                continue;
            }
            if (out == null) {
                out = new StringBuilder(key.length() + 8).append(key, 0, i);
            }
            out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4 & 0xF, 16)))
                    .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
        }
        return out == null ? key : out.toString();
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
}
