package io.github.redissonratelimit.naming;

/**
 * How {@link LimiterNaming} puts the (escaped) logical key after the prefix.
 */
public enum KeyStyle {

    /**
     * {@code <prefix>{<key>}}: the key is a Redis Cluster hash tag, so limiters of different keys spread over
     * the cluster whatever the prefix. The default.
     */
    HASH_TAG,

    /**
     * {@code <prefix><key>}, no braces added: the names a hand-written aspect gives with
     * {@code redisson.getRateLimiter("rate_limit:" + key)}, so its limiters' counts carry over. Braces in the key
     * are still escaped, so the name holds no hash tag and RRateLimiter's {@code {name}:value} and
     * {@code {name}:permits} keys hash to the slot of the whole name, the config hash's slot.
     */
    PLAIN
}
