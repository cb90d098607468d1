package io.github.redissonratelimit.gateway;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code ratelimit.gateway.*}: how the gateway answers a request its rate limiter refused. */
@ConfigurationProperties("ratelimit.gateway")
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
