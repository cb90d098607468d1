package io.github.redissonratelimit.autoconfigure.contract;

import java.net.URI;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.redissonratelimit.test.contract.LimitContract;
import io.github.redissonratelimit.test.redis.FreshRedis;

/** {@link LimitContract}: Annotated methods (Spring MVC), on a real Redis. */
class AnnotatedLimitContractTest extends LimitContract {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private ConfigurableApplicationContext application;

    @BeforeEach
    void start() {
        application = ContractApplications.annotated(fresh.endpoint());
    }

    @AfterEach
    void stop() {
        application.close();
    }

    @Override
    protected URI base() {
        return ContractApplications.base(application);
    }
}
