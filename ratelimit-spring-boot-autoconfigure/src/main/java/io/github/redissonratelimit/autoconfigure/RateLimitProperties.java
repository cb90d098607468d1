package io.github.redissonratelimit.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

import io.github.redissonratelimit.key.LimiterNaming;

/**
 * Configuration of {@code @RateLimit}.
 */
@ConfigurationProperties("ratelimit")
public class RateLimitProperties {

    /**
     * Whether methods annotated with @RateLimit are limited. When false, no rate limiting bean is created
     * and annotated methods run unlimited.
     */
    private boolean enabled = true;

    /**
     * Prefix of every limiter name in Redis. The limiter for key 'order:42' is '<prefix>{order:42}'; its
     * state lives in '<prefix>{order:42}:value' and '<prefix>{order:42}:permits'. Must not contain '{' or '}'.
     */
    private String keyPrefix = LimiterNaming.DEFAULT_PREFIX;

    /**
     * Longest key (after escaping) kept as written; a longer one is cut and ends in '~' plus the SHA-256 of
     * the whole key, so Redis keys stay bounded whatever the key expression returns. At least 51.
     */
    private int maxKeyLength = LimiterNaming.DEFAULT_MAX_KEY_LENGTH;

    /**
     * How many limiter names each application instance remembers as initialized in Redis. Past that, the
     * least recently used are forgotten and cost one extra write on their next use.
     */
    private long knownLimiters = 100_000;

    /**
     * Order of the rate limit advice among other advisors. The default 0 runs it before @Transactional and
     * @Cacheable (lowest precedence by default), so a rejected call opens no transaction.
     */
    private int order = 0;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("ratelimit.key-prefix must not contain '{' or '}': the limiter key already has a Redis "
                    + "Cluster hash tag around the key part; use a prefix such as 'myapp:rate_limit:'");
        }
        this.keyPrefix = keyPrefix;
    }

    public int getMaxKeyLength() {
        return maxKeyLength;
    }

    public void setMaxKeyLength(int maxKeyLength) {
        if (maxKeyLength < 51) {
            throw new IllegalArgumentException("ratelimit.max-key-length must be at least 51 (a cut key keeps a 43-character digest) but was "
                    + maxKeyLength);
        }
        this.maxKeyLength = maxKeyLength;
    }

    public long getKnownLimiters() {
        return knownLimiters;
    }

    public void setKnownLimiters(long knownLimiters) {
        if (knownLimiters < 1) {
            throw new IllegalArgumentException("ratelimit.known-limiters must be at least 1 but was " + knownLimiters);
        }
        this.knownLimiters = knownLimiters;
    }

    public int getOrder() {
        return order;
    }

    public void setOrder(int order) {
        this.order = order;
    }
}
