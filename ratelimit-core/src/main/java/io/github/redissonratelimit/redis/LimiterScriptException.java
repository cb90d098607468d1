package io.github.redissonratelimit.redis;

import org.redisson.client.RedisException;

/**
 * An error raised while a script of the Redis backend decided for a limiter: Redis's error text, with the file
 * and line of the script each {@code user_script:<line>} it names is, e.g.
 * {@code ERR user_script:97: ... [user_script:97 is decide.lua:30]}. Unless Redis refused a command for a state of
 * its own ({@code OOM}, {@code READONLY} ..., the error code its message starts with), such an error is the same
 * whenever the limiter is called, not an outage.
 */
public final class LimiterScriptException extends RedisException {

    private static final long serialVersionUID = 1L;

    LimiterScriptException(String message, Throwable cause) {
        super(message, cause);
    }

    LimiterScriptException(String message) {
        super(message);
    }
}
