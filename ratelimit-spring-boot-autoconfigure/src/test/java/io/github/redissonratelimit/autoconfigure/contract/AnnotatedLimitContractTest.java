package io.github.redissonratelimit.autoconfigure.contract;

import org.springframework.context.ConfigurableApplicationContext;

import io.github.redissonratelimit.test.contract.LimitContract;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/** {@link LimitContract}: Annotated methods (Spring MVC), on a real Redis. */
class AnnotatedLimitContractTest extends ApplicationLimitContract {

    @Override
    ConfigurableApplicationContext start(RedisEndpoint redis) {
        return ContractApplications.annotated(redis);
    }
}
