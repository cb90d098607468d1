package io.github.redissonratelimit.test.redis;

import java.util.List;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** Where the tests' Redis answers, and how it was obtained. */
public record RedisEndpoint(String host, int port, String origin) implements RedisDeployment {

    public String address() {
        return "redis://" + host + ":" + port;
    }

    public RespClient cli() {
        return new RespClient(host, port);
    }

    /** A fresh single-server Redisson client; the caller shuts it down. */
    @Override
    public RespClient cliFor(String key) {
        return cli();
    }

    @Override
    public RedissonClient newRedissonClient() {
        Config config = new Config();
        config.useSingleServer()
                .setAddress(address())
                .setConnectionMinimumIdleSize(2)
                .setConnectionPoolSize(16)
                .setTimeout(3_000)
                .setRetryAttempts(1);
        return Redisson.create(config);
    }

    @Override
    public void flushAll() {
        try (RespClient client = cli()) {
            client.command("FLUSHALL");
        }
    }

    @Override
    public CommandStats commandStats() {
        try (RespClient client = cli()) {
            return CommandStats.read(client);
        }
    }

    @Override
    public List<String> keys(String pattern) {
        try (RespClient client = cli()) {
            return client.list("KEYS", pattern).stream().map(String::valueOf).toList();
        }
    }

    @Override
    public Object command(String... args) {
        try (RespClient client = cli()) {
            return client.command(args);
        }
    }

    @Override
    public String describe() {
        return "standalone " + origin + " at " + host + ":" + port;
    }
}
