package io.github.redissonratelimit.autoconfigure.contract;

import java.net.URI;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.redissonratelimit.test.contract.LimitContract;
import io.github.redissonratelimit.test.redis.FreshRedis;

/** {@link LimitContract}: {@code ratelimit.routes} on Spring MVC, on a real Redis. */
class ServletRouteLimitContractTest extends LimitContract {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private ConfigurableApplicationContext application;

    @BeforeEach
    void start() {
        application = ContractApplications.routes(fresh.endpoint(), WebApplicationType.SERVLET);
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
