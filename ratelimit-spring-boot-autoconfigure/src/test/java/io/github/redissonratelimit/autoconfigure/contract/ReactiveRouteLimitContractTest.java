package io.github.redissonratelimit.autoconfigure.contract;

import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.redissonratelimit.test.contract.LimitContract;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/** {@link LimitContract}: {@code ratelimit.routes} on WebFlux, on a real Redis. */
class ReactiveRouteLimitContractTest extends ApplicationLimitContract {

    @Override
    ConfigurableApplicationContext start(RedisEndpoint redis) {
        return ContractApplications.routes(redis, WebApplicationType.REACTIVE);
    }
}
