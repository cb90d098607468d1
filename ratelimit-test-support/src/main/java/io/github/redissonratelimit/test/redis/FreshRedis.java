package io.github.redissonratelimit.test.redis;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.redisson.api.RedissonClient;

/**
 * The shared {@link TestRedis}, emptied before each test, and the Redisson clients a test creates on it, shut down
 * after the test. Register it as a field, and take the endpoint from it:
 *
 * <pre>
 * &#64;RegisterExtension
 * final FreshRedis fresh = new FreshRedis();
 * private final RedisEndpoint redis = fresh.endpoint();
 * </pre>
 */
public final class FreshRedis implements BeforeEachCallback, AfterEachCallback {

    private final RedissonClients clients = new RedissonClients();

    public RedisEndpoint endpoint() {
        return TestRedis.endpoint();
    }

    /** A new client for {@link #endpoint()}, shut down after the test. */
    public RedissonClient newClient() {
        return clients.create(endpoint());
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        endpoint().flushAll();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        clients.afterEach(context);
    }
}
