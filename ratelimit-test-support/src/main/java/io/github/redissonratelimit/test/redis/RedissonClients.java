package io.github.redissonratelimit.test.redis;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.redisson.api.RedissonClient;

/**
 * The Redisson clients a test creates, shut down after each test. Register it as a field:
 * {@code @RegisterExtension final RedissonClients clients = new RedissonClients();}.
 */
public final class RedissonClients implements AfterEachCallback {

    private final List<RedissonClient> clients = new CopyOnWriteArrayList<>();

    /** A new client for {@code redis} (single server, cluster or sentinel mode), shut down after the test. */
    public RedissonClient create(RedisDeployment redis) {
        RedissonClient client = redis.newRedissonClient();
        clients.add(client);
        return client;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        clients.forEach(RedissonClient::shutdown);
        clients.clear();
    }
}
