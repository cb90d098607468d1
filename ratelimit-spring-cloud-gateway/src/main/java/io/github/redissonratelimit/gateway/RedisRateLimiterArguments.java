package io.github.redissonratelimit.gateway;

import java.time.Duration;

import io.github.redissonratelimit.annotation.RateLimitAlgorithm;

/**
 * The arguments of Spring Cloud Gateway's {@code RedisRateLimiter} that a route keeps when it switches to this
 * limiter ({@code redis-rate-limiter.replenish-rate}, {@code .burst-capacity}, {@code .requested-tokens}), with their
 * meaning and defaults there: a token bucket of {@code burstCapacity} tokens (default 1) refilled with
 * {@code replenishRate} tokens a second, each request taking {@code requestedTokens} (default 1). A bucket smaller
 * than a request (a burst capacity of 0, or below the requested tokens) refuses every request, as there.
 */
public class RedisRateLimiterArguments {

    /** The prefix of these arguments in a route's filter definition. */
    public static final String CONFIGURATION_PROPERTY_NAME = "redis-rate-limiter";

    private int replenishRate;
    private int burstCapacity = 1;
    private int requestedTokens = 1;

    public int getReplenishRate() {
        return replenishRate;
    }

    public RedisRateLimiterArguments setReplenishRate(int replenishRate) {
        this.replenishRate = replenishRate;
        return this;
    }

    public int getBurstCapacity() {
        return burstCapacity;
    }

    public RedisRateLimiterArguments setBurstCapacity(int burstCapacity) {
        this.burstCapacity = burstCapacity;
        return this;
    }

    public int getRequestedTokens() {
        return requestedTokens;
    }

    public RedisRateLimiterArguments setRequestedTokens(int requestedTokens) {
        this.requestedTokens = requestedTokens;
        return this;
    }

    /**
     * The route's limit: a token bucket of the burst capacity, refilled at the replenish rate per second; for a
     * route configured in Java, put it in {@code redissonRouteRateLimiter.getConfig()} under the route's id.
     * @throws IllegalArgumentException naming the route and the argument at fault
     */
    public RedissonRouteRateLimiter.Config toConfig(String routeId) {
        require(replenishRate >= 1, routeId, "replenish-rate", "must be at least 1 but was " + replenishRate);
        require(burstCapacity >= 0, routeId, "burst-capacity", "must be at least 0 but was " + burstCapacity);
        require(requestedTokens >= 1, routeId, "requested-tokens", "must be at least 1 but was " + requestedTokens);
        RedissonRouteRateLimiter.Config config = new RedissonRouteRateLimiter.Config().setRate(replenishRate)
                .setInterval(Duration.ofSeconds(1)).setAlgorithm(RateLimitAlgorithm.TOKEN_BUCKET)
                .setBurst(burstCapacity).setPermits(requestedTokens);
        if (requestedTokens > burstCapacity) {
            config.refuseAll("its " + CONFIGURATION_PROPERTY_NAME + ".burst-capacity (" + burstCapacity
                    + ") is below its requested-tokens (" + requestedTokens + ")");
        }
        return config;
    }

    private static void require(boolean valid, String routeId, String argument, String problem) {
        if (!valid) {
            throw new IllegalArgumentException("Route '" + routeId + "': " + CONFIGURATION_PROPERTY_NAME + "."
                    + argument + " " + problem);
        }
    }

    @Override
    public String toString() {
        return "[replenishRate=" + replenishRate + ", burstCapacity=" + burstCapacity + ", requestedTokens="
                + requestedTokens + "]";
    }
}
