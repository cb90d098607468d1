package io.github.redissonratelimit.autoconfigure.contract;

import java.net.URI;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.redissonratelimit.test.contract.LimitContract;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/** {@link LimitContract} against an application of {@link ContractApplications}, started per test on a fresh Redis. */
abstract class ApplicationLimitContract extends LimitContract {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private ConfigurableApplicationContext application;

    abstract ConfigurableApplicationContext start(RedisEndpoint redis);

    @BeforeEach
    void startApplication() {
        application = start(fresh.endpoint());
    }

    @AfterEach
    void stopApplication() {
        application.close();
    }

    @Override
    protected URI base() {
        return ContractApplications.base(application);
    }
}
