package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.FreshRedis;

/** The scripts reach Redis as their files are written, and Redis's errors tell the file and line they came from. */
class LuaScriptsTest {

    private static final LimitSpec FIVE = new LimitSpec(5, Duration.ofMinutes(1), RateLimitMode.OVERALL);

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();

    /** The 1-based line of {@code file} that holds {@code text}. */
    private static int lineOf(String file, String text) throws IOException {
        try (InputStream in = LuaScripts.class.getClassLoader().getResourceAsStream(LuaScripts.LOCATION + file)) {
            List<String> lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).contains(text)) {
                    return i + 1;
                }
            }
        }
        throw new AssertionError(text + " is not in " + file);
    }

    @Test
    void eachLineOfAScriptIsALineOfOneOfItsFiles() throws IOException {
        LuaScripts.Script acquire = LuaScripts.ACQUIRE;
        String[] lines = acquire.text().split("\n", -1);
        int decideLine = lineOf("decide.lua", "decide_sliding = function(");
        int line = 1;
        while (!lines[line - 1].contains("decide_sliding = function(")) {
            line++;
        }
        assertThat(acquire.locate(line)).isEqualTo("decide.lua:" + decideLine);
        assertThat(acquire.locate(1)).isEqualTo("clock.lua:1");
        assertThat(acquire.locate(lines.length)).isNull();
        assertThat(acquire.text()).contains("-- decide: the decision of acquire");
    }

    @Test
    void aLuaErrorOfTheScriptTellsItsFileAndLine() throws IOException {
        RedissonClient client = fresh.newClient();
        AcquireScript script = AcquireScriptTest.forClient(client.getId());
        String name = new LimiterNaming().limiterName("located");

        assertThatThrownBy(() -> LuaScripts.ACQUIRE.eval(client.getScript(StringCodec.INSTANCE), name,
                RScript.Mode.READ_WRITE, RedissonCompatibility.LIST, script.keys(name), "not an argument").join())
                .isInstanceOf(CompletionException.class).cause().isInstanceOf(LimiterScriptException.class)
                .hasMessageContaining("malformed acquire argument")
                .hasMessageContaining(" is decide.lua:" + lineOf("decide.lua", "error('redisson-ratelimit: malformed"));
    }

    @Test
    void aCommandErrorOfADecisionTellsItsFileAndLine() throws IOException {
        RedissonClient client = fresh.newClient();
        String name = new LimiterNaming().limiterName("located");
        fresh.endpoint().command("SET", LimiterNaming.permitsKey(name), "not a zset");

        assertThatThrownBy(() -> acquire(new RedissonRateLimitBackend(client), name, FIVE, 1))
                .isInstanceOf(LimiterScriptException.class).hasMessageStartingWith("WRONGTYPE")
                .hasMessageContaining(" is common.lua:" + lineOf("common.lua", "redis.call('zremrangebyscore'"));
    }

    @Test
    void aCommandErrorOfTheSlidingWindowsOwnScriptTellsItsFileAndLine() throws IOException {
        RedissonClient client = fresh.newClient();
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);
        String name = new LimiterNaming().limiterName("located-lean");
        acquire(backend, name, FIVE, 1);
        fresh.endpoint().command("SET", LimiterNaming.permitsKey(name), "not a zset");

        assertThatThrownBy(() -> acquire(backend, name, FIVE, 1))
                .isInstanceOf(LimiterScriptException.class).hasMessageStartingWith("WRONGTYPE")
                .hasMessageContaining(" is acquire-sliding.lua:"
                        + lineOf("acquire-sliding.lua", "redis.call('zrange', grantsKey, '0', '1', 'withscores')"));
    }
}
