package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.redissonratelimit.test.redis.RedisServerProcess;

/**
 * At startup the rate limiter reads Redis's {@code maxmemory-policy} and warns, once, when a full Redis would evict
 * limiter keys ({@code allkeys-*}, and {@code volatile-*} since limiter keys have a TTL), naming the setting to
 * use; where {@code CONFIG} is disabled it reads {@code INFO memory}, and where both are refused it says so at
 * INFO and starts all the same. Each test starts its own redis-server, configured as the case needs.
 */
class RedisEvictionPolicyTest {

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger warmUpLogger = (Logger) LoggerFactory.getLogger(RateLimitScriptWarmUp.class);

    @BeforeEach
    void setUp() {
        log.start();
        warmUpLogger.addAppender(log);
    }

    @AfterEach
    void tearDown() {
        warmUpLogger.detachAppender(log);
    }

    private static ApplicationContextRunner runner(RedisServerProcess server) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
                .withBean(RedissonClient.class, () -> server.endpoint().newRedissonClient(),
                        definition -> definition.setDestroyMethodName("shutdown"));
    }

    private List<ILoggingEvent> events(Level level) {
        return log.list.stream().filter(event -> event.getLevel() == level).toList();
    }

    private void assertOneEvictionWarning(RedisServerProcess server, String policy) {
        assertThat(events(Level.WARN)).singleElement().satisfies(event -> {
            assertThat(event.getThrowableProxy()).isNull();
            assertThat(event.getFormattedMessage())
                    .startsWith("Redis runs with maxmemory-policy " + policy + " at 127.0.0.1:" + server.port() + ": ")
                    .contains("evicts keys, rate limiter keys included", "Set maxmemory-policy noeviction",
                            "outage policy (ratelimit.on-backend-error)", "docs/operations.md");
        });
    }

    @Test
    void warnsOnceWhenAllKeysMayBeEvicted() {
        try (RedisServerProcess server = RedisServerProcess.startOnFreePort()) {
            server.endpoint().command("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
            runner(server).run(context -> {
                assertThat(context).hasNotFailed();
                assertOneEvictionWarning(server, "allkeys-lru");
                assertThat(events(Level.INFO)).isEmpty();
            });
        }
    }

    @Test
    void warnsWhenKeysWithATtlMayBeEvictedSinceLimiterKeysHaveOne() {
        try (RedisServerProcess server = RedisServerProcess.startOnFreePort("--maxmemory-policy", "volatile-lru")) {
            runner(server).run(context -> {
                assertThat(context).hasNotFailed();
                assertOneEvictionWarning(server, "volatile-lru");
            });
        }
    }

    @Test
    void saysNothingUnderNoeviction() {
        try (RedisServerProcess server = RedisServerProcess.startOnFreePort("--maxmemory-policy", "noeviction")) {
            runner(server).run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(log.list).filteredOn(event -> event.getLevel().isGreaterOrEqual(Level.INFO)).isEmpty();
            });
        }
    }

    @Test
    void readsInfoWhereConfigIsDisabledAsOnManagedRedis() {
        try (RedisServerProcess server = RedisServerProcess.startOnFreePort("--rename-command", "CONFIG", "",
                "--maxmemory-policy", "allkeys-lfu")) {
            assertThatThrownBy(() -> server.endpoint().command("CONFIG", "GET", "maxmemory-policy"))
                    .hasMessageContaining("unknown command");
            runner(server).run(context -> {
                assertThat(context).hasNotFailed();
                assertOneEvictionWarning(server, "allkeys-lfu");
            });
        }
    }

    @Test
    void startsAndSaysTheEvictionPolicyIsUnknownWhenRedisRefusesToTellIt() {
        // an ACL like a managed service's: the default user may run the limiter's commands but not CONFIG or INFO
        try (RedisServerProcess server = RedisServerProcess.startOnFreePort("--maxmemory-policy", "allkeys-lru",
                "--user", "default", "on", "nopass", "~*", "&*", "+@all", "-config", "-info")) {
            runner(server).run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(events(Level.WARN)).isEmpty();
                assertThat(events(Level.INFO)).singleElement().satisfies(event -> {
                    assertThat(event.getThrowableProxy()).isNull();
                    assertThat(event.getFormattedMessage())
                            .startsWith("Could not read the maxmemory-policy of Redis; make sure it is noeviction")
                            .contains("127.0.0.1:" + server.port() + ": CONFIG GET failed: NOPERM", "INFO failed: NOPERM");
                });
            });
        }
    }
}
