package io.github.redissonratelimit.test.redis;

import java.util.List;

import org.redisson.api.RedissonClient;

/**
 * A Redis a test talks to, standalone ({@link RedisEndpoint}), a cluster ({@link RedisClusterProcess}) or a
 * master with a replica under Sentinel ({@link RedisSentinelProcess}), so that one behaviour suite can run
 * against each. Assertions go through a raw RESP client, not
 * through the Redisson client under test.
 */
public interface RedisDeployment {

    /** A new Redisson client for this deployment (single server, cluster or sentinel mode); the caller shuts it down. */
    RedissonClient newRedissonClient();

    /** Empties every node. */
    void flushAll();

    /** {@code INFO commandstats}, summed over every node that clients send commands to (not over replicas). */
    CommandStats commandStats();

    /** A raw connection to the master that holds {@code key} (e.g. for {@code MONITOR}); the caller closes it. */
    RespClient cliFor(String key);

    /** {@code KEYS pattern} of every node. */
    List<String> keys(String pattern);

    /** Sends a command whose first argument is a key ({@code GET k}, {@code EXISTS k}) to the node that holds it. */
    Object command(String... args);

    default String string(String... args) {
        Object reply = command(args);
        return reply == null ? null : reply.toString();
    }

    default long number(String... args) {
        return ((Number) command(args)).longValue();
    }

    /** How the deployment was obtained, for test reports. */
    String describe();
}
