package io.github.redissonratelimit.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

import io.github.redissonratelimit.log.LogSafe;
import io.github.redissonratelimit.limiter.Completions;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;

/**
 * Loads the rate limiter's scripts into Redis once every singleton exists, before the web server starts taking
 * requests: the first decisions then make one round trip each, instead of also paying Redis's {@code NOSCRIPT}
 * and a script load, which on a cold start can exceed {@code ratelimit.backend-timeout} and send them to the
 * outage policy. When Redis does not answer within {@code wait}, startup goes on (one WARN): the first decisions
 * load the scripts themselves.
 *
 * <p>At the same time it reads the {@code maxmemory-policy} of Redis ({@link RedisEvictionPolicy}) and logs one
 * WARN when a full Redis would evict limiter keys, or one INFO when the policy cannot be read (e.g. {@code CONFIG}
 * disabled). That answer is awaited within the same {@code wait}; a later one is still logged when it comes.
 *
 * <p>Then, within what is left of {@code wait}, it runs real decisions on a throwaway limiter through the Redisson
 * backend and its decorators ({@link WarmUpDecisions}): scripts in Redis's cache are not enough for a fresh JVM,
 * whose first decisions otherwise also load and interpret the whole decision path while the first requests come
 * in, and miss the 100 ms {@code ratelimit.backend-timeout} (see {@code docs/operations.md#warm-start}).
 */
public final class RateLimitScriptWarmUp implements SmartInitializingSingleton {

    private static final Log logger = LogFactory.getLog(RateLimitScriptWarmUp.class);

    private final RedissonClient redisson;
    private final Duration wait;
    private final ObjectProvider<RateLimitBackend> redissonBackend;
    private final Function<RateLimitBackend, RateLimitBackend> composedAround;
    private final int failureThreshold;
    private final LimiterNaming naming;

    /** Scripts and eviction policy only, no decisions. */
    public RateLimitScriptWarmUp(RedissonClient redisson, Duration wait) {
        this(redisson, wait, null, null, 0, null);
    }

    /**
     * @param redissonBackend the {@link RateLimitAutoConfiguration#REDISSON_BACKEND} bean: decisions are warmed up
     * when it is a {@link RedissonRateLimitBackend}
     * @param composedAround given the Redisson backend, the composed backend around it (warmed up too), or null when
     * the backend in use is not composed around it
     * @param failureThreshold {@code ratelimit.circuit-breaker.failure-threshold}: the warm-up sends fewer
     * decisions than that through the circuit breaker
     * @param naming the key prefix of the throwaway limiter
     */
    public RateLimitScriptWarmUp(RedissonClient redisson, Duration wait, ObjectProvider<RateLimitBackend> redissonBackend,
            Function<RateLimitBackend, RateLimitBackend> composedAround, int failureThreshold, LimiterNaming naming) {
        this.redisson = redisson;
        this.wait = wait;
        this.redissonBackend = redissonBackend;
        this.composedAround = composedAround;
        this.failureThreshold = failureThreshold;
        this.naming = naming;
    }

    @Override
    public void afterSingletonsInstantiated() {
        long deadline = System.nanoTime() + wait.toNanos();
        CompletableFuture<List<RedisEvictionPolicy>> eviction = readEvictionPolicy();
        boolean loaded = false;
        try {
            RedissonRateLimitBackend.loadScripts(redisson).toCompletableFuture().get(wait.toMillis(), TimeUnit.MILLISECONDS);
            loaded = true;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return;
        }
        catch (Exception ex) {
            logger.warn("Could not load the rate limit scripts into Redis within " + wait + " at startup ("
                    + ex.getClass().getSimpleName() + "); the first decisions will load them");
        }
        if (loaded) {
            warmUpDecisions(deadline);
        }
        awaitEvictionPolicy(eviction, deadline);
    }

    /** Real decisions, when Redis answered the script load (a Redis that does not must not open the circuit). */
    private void warmUpDecisions(long deadline) {
        WarmUpDecisions decisions = decisions();
        if (decisions == null) {
            return;
        }
        long start = System.nanoTime();
        try {
            Duration first = decisions.run(deadline);
            if (logger.isDebugEnabled()) {
                logger.debug("Warmed up the rate limit decision path in " + Duration.ofNanos(System.nanoTime() - start)
                        .toMillis() + "ms (first decision " + first.toMillis() + "ms)");
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        catch (TimeoutException ex) {
            logger.info("Could not warm up the rate limit decisions within " + wait + " at startup; the first "
                    + "requests' decisions may be slower");
        }
        catch (Exception ex) {
            Throwable cause = Completions.unwrap(ex);
            logger.info("Could not warm up the rate limit decisions at startup (" + cause.getClass().getSimpleName()
                    + "); the first requests' decisions may be slower");
            logger.debug("Warm-up decision failed", cause);
        }
    }

    private WarmUpDecisions decisions() {
        if (redissonBackend == null || naming == null) {
            return null;
        }
        RateLimitBackend redissonOne = redissonBackend.getIfAvailable();
        if (!(redissonOne instanceof RedissonRateLimitBackend redissonRateLimitBackend)) {
            return null; // an application's own backend: its decisions are not ours to make
        }
        RateLimitBackend composed = composedAround != null ? composedAround.apply(redissonOne) : null;
        return new WarmUpDecisions(redisson, redissonRateLimitBackend, composed, failureThreshold, naming);
    }

    private CompletableFuture<List<RedisEvictionPolicy>> readEvictionPolicy() {
        try {
            return RedisEvictionPolicy.read(redisson);
        }
        catch (RuntimeException ex) {
            logger.debug("Could not ask Redis for its maxmemory-policy", ex);
            return CompletableFuture.completedFuture(List.of());
        }
    }

    private static void awaitEvictionPolicy(CompletableFuture<List<RedisEvictionPolicy>> eviction, long deadline) {
        try {
            report(eviction.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        catch (TimeoutException ex) {
            // startup does not wait longer: the answer is logged when it comes
            eviction.thenAccept(RateLimitScriptWarmUp::report);
        }
        catch (Exception ex) {
            logger.debug("Could not read the maxmemory-policy of Redis", ex);
        }
    }

    /** One WARN when a policy evicts limiter keys, one INFO when a policy is unknown, DEBUG otherwise. */
    static void report(List<RedisEvictionPolicy> policies) {
        String warning = RedisEvictionPolicy.warning(policies);
        if (warning != null) {
            logger.warn(warning);
        }
        String unknown = RedisEvictionPolicy.unknown(policies);
        if (unknown != null) {
            logger.info(LogSafe.text(unknown));
        }
        if (warning == null && unknown == null && logger.isDebugEnabled()) {
            logger.debug("Redis maxmemory-policy: " + policies.stream()
                    .map(policy -> policy.address() + " " + policy.describe()).toList());
        }
    }
}
