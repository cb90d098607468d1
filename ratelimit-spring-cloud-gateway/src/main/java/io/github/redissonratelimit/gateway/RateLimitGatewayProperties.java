package io.github.redissonratelimit.gateway;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code spring.cloud.gateway.server.webflux.redisson-rate-limiter.*}, beside the gateway's settings of its own
 * limiters: how a request that {@link RedissonRouteRateLimiter} refused is answered. Not under {@code ratelimit.*},
 * whose names the starter checks against its own properties.
 */
@ConfigurationProperties("spring.cloud.gateway.server.webflux.redisson-rate-limiter")
public class RateLimitGatewayProperties {

    /**
     * Whether a request refused by redisson-rate-limiter on a gateway route (the limit, an outage under the 'deny'
     * policy, a blank key) is answered with an RFC 9457 problem+json body, as annotated limits are. Off: the status
     * and headers only, as Spring Cloud Gateway's own RequestRateLimiter answers.
     */
    private boolean problemBody = true;

    public boolean isProblemBody() {
        return problemBody;
    }

    public void setProblemBody(boolean problemBody) {
        this.problemBody = problemBody;
    }
}
