package io.github.redissonratelimit.autoconfigure;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.SmartInitializingSingleton;

import io.github.redissonratelimit.redis.RedissonRateLimitBackend;

/**
 * Loads the rate limiter's scripts into Redis once every singleton exists, before the web server starts taking
 * requests: the first decisions then make one round trip each, instead of also paying Redis's {@code NOSCRIPT}
 * and a script load, which on a cold start can exceed {@code ratelimit.backend-timeout} and send them to the
 * outage policy. When Redis does not answer within {@code wait}, startup goes on (one WARN): the first decisions
 * load the scripts themselves.
 */
public final class RateLimitScriptWarmUp implements SmartInitializingSingleton {

    private static final Log logger = LogFactory.getLog(RateLimitScriptWarmUp.class);

    private final RedissonClient redisson;
    private final Duration wait;

    public RateLimitScriptWarmUp(RedissonClient redisson, Duration wait) {
        this.redisson = redisson;
        this.wait = wait;
    }

    @Override
    public void afterSingletonsInstantiated() {
        try {
            RedissonRateLimitBackend.loadScripts(redisson).toCompletableFuture().get(wait.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        catch (Exception ex) {
            logger.warn("Could not load the rate limit scripts into Redis within " + wait + " at startup ("
                    + ex.getClass().getSimpleName() + "); the first decisions will load them");
        }
    }
}
