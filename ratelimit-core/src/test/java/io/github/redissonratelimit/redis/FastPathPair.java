package io.github.redissonratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * Two limiters on one Redis that should never tell apart: the lean one decided by an algorithm's fast-path script
 * (its {@code -4} sent again as the full acquire script, as the backend does), the full one by the full acquire
 * script alone. The scripts are composed here from their resources (the files, in the order the backend sends
 * them), so that this comparison does not depend on the Java classes that send them. Every change is made to both;
 * {@link #assertSameState} compares their keys byte for byte.
 *
 * <p>Keys expire in Redis's real time while the walks' clock is the caller's, and the two limiters are written a
 * moment apart: a key's expiry is compared to the time its two writes lie apart, then a key about to expire
 * (within {@link #EXPIRING_MILLIS}) is deleted from both, as it would expire, and one set to expire within
 * {@link #PERSISTED_MILLIS} is made to live on in both (stale, as the caller's clock may find it), so that Redis
 * never expires a key in one limiter and not yet in the other and a seed walks the same way on every run.
 */
final class FastPathPair implements AutoCloseable {

    /** The full decision script, as the backend composes it from the registered algorithms. */
    static final String FULL = LuaScripts.ACQUIRE.text();

    static final String REFUND = LuaScripts.REFUND.text();

    private static final long EXPIRING_MILLIS = 100;

    private static final long PERSISTED_MILLIS = 20 * 60_000; // longer than the token buckets' and windows' keys live

    private static final String CLIENT = "client-1";

    /**
     * Each key of KEYS (the lean limiter's five, then the full one's): type, expiry (ms of Redis's clock, -1 none,
     * -2 no key), content as hex; then Redis's time in ms.
     */
    private static final String DUMP = """
            local function hex(s)
              return (string.gsub(s, '.', function(c) return string.format('%02x', string.byte(c)) end))
            end
            local out = {}
            for i = 1, #KEYS do
              local own = i <= 5 and 0 or 5
              local kind = redis.call('type', KEYS[i]).ok
              local entry = {kind, redis.call('pexpiretime', KEYS[i])}
              if kind == 'string' then
                entry[3] = hex(redis.call('get', KEYS[i]))
              elseif kind == 'zset' then
                for _, part in ipairs(redis.call('zrange', KEYS[i], 0, -1, 'withscores')) do
                  entry[#entry + 1] = hex(part)
                end
              elseif kind == 'hash' then
                local fields, pairs = redis.call('hgetall', KEYS[i]), {}
                for j = 1, #fields, 2 do
                  local field = fields[j]
                  for k = 1, 5 do
                    if field == KEYS[own + k] then
                      field = '@' .. k -- the counter's copy is named after the limiter's own key
                    end
                  end
                  pairs[#pairs + 1] = hex(field) .. '=' .. hex(fields[j + 1])
                end
                table.sort(pairs)
                for _, pair in ipairs(pairs) do
                  entry[#entry + 1] = pair
                end
              end
              out[i] = entry
            end
            local time = redis.call('time')
            out[#KEYS + 1] = time[1] * 1000 + math.floor(time[2] / 1000)
            return out
            """;

    private final RespClient redis;
    private final String fastSha;
    private final String fullSha;
    private final String refundSha;
    private final String dumpSha;
    private final String[] lean;
    private final String[] full;
    /** The longest time between a change to the lean limiter and the same change to the full one, in ms. */
    private long gapMillis;
    private int fellBack;

    FastPathPair(RedisEndpoint endpoint, String fastPath) {
        this.redis = endpoint.cli();
        this.fastSha = load(script(fastPath));
        this.fullSha = load(FULL);
        this.refundSha = load(REFUND);
        this.dumpSha = load(DUMP);
        LimiterNaming naming = new LimiterNaming();
        this.lean = keys(naming.limiterName("lean"));
        this.full = keys(naming.limiterName("full"));
    }

    /** The lean limiter's reply to an acquire of {@code argument}, after asserting the full one's is the same. */
    List<?> acquire(String argument, String as) {
        long start = System.nanoTime();
        List<?> reply = (List<?>) evalSha(fastSha, lean, argument);
        boolean handedOver = reply.size() == 1 && Long.valueOf(-4).equals(reply.get(0));
        if (handedOver) {
            this.fellBack++;
            reply = (List<?>) evalSha(fullSha, lean, argument);
        }
        Object expected = evalSha(fullSha, full, argument);
        noteGap(start);
        assertThat(reply).as(as).isEqualTo(expected);
        return reply;
    }

    /** How many acquires the fast path left to the full script. */
    int fellBack() {
        return fellBack;
    }

    /** A refund with RefundScript's arguments, on both; its reply, after asserting both's are the same. */
    Object refund(String as, String... arguments) {
        long start = System.nanoTime();
        Object reply = outcome(refundSha, lean, arguments);
        Object expected = outcome(refundSha, full, arguments);
        noteGap(start);
        assertThat(reply).as(as).isEqualTo(expected);
        return reply;
    }

    /** The script's reply, or the text of its error (the same script fails alike on the same state). */
    private Object outcome(String sha, String[] keys, String... arguments) {
        try {
            return evalSha(sha, keys, arguments);
        }
        catch (RespClient.RedisReplyException error) {
            return "error: " + error.getMessage();
        }
    }

    /** The full acquire script on both (another algorithm's decision, say); errors alike on both are ignored. */
    void fullOnBoth(String argument) {
        onBoth(keys -> {
            List<String> command = new ArrayList<>(List.of("EVALSHA", fullSha, "5"));
            command.addAll(List.of(keys));
            command.add(argument);
            return command.toArray(String[]::new);
        });
    }

    /**
     * The command {@code command} makes of a limiter's five keys (config hash, free permits shared and this
     * client's, grants shared and this client's), on both; a Redis error (alike on both) is ignored.
     */
    void onBoth(Function<String[], String[]> command) {
        long start = System.nanoTime();
        for (String[] keys : List.of(lean, full)) {
            try {
                redis.command(command.apply(keys));
            }
            catch (RespClient.RedisReplyException refusedAlike) {
                // e.g. RRateLimiter's DECRBY on another algorithm's state
            }
        }
        noteGap(start);
    }

    /**
     * Asserts both limiters hold the same keys with the same content, each expiring (or not) alike; then deletes
     * from both the keys about to expire, and keeps those that would expire during the walk.
     */
    void assertSameState(String as) {
        List<String> both = new ArrayList<>(List.of(lean));
        both.addAll(List.of(full));
        List<?> dump = (List<?>) evalSha(dumpSha, both.toArray(String[]::new));
        long now = (Long) dump.get(10);
        for (int key = 0; key < 5; key++) {
            List<?> leanKey = (List<?>) dump.get(key);
            List<?> fullKey = (List<?>) dump.get(key + 5);
            String which = as + " [key " + (key + 1) + "]";
            long leanExpiry = (Long) leanKey.get(1);
            long fullExpiry = (Long) fullKey.get(1);
            if ((leanExpiry == -2) != (fullExpiry == -2)) {
                // written to expire at once: gone from the limiter written first, about to go from the other
                assertThat(Math.max(leanExpiry, fullExpiry) - now).as(which + " expired in one limiter only")
                        .isBetween(-1L, gapMillis + 1);
                redis.command("DEL", lean[key], full[key]);
                continue;
            }
            assertThat(withoutExpiry(leanKey)).as(which).isEqualTo(withoutExpiry(fullKey));
            if (leanExpiry < 0 || fullExpiry < 0) {
                assertThat(leanExpiry).as(which + " expiry").isEqualTo(fullExpiry);
            }
            else {
                // written at most gapMillis apart, each with the same PX if the scripts agree
                assertThat(Math.abs(leanExpiry - fullExpiry)).as(which + " expiry %d vs %d", leanExpiry, fullExpiry)
                        .isLessThanOrEqualTo(gapMillis + 1);
                if (Math.min(leanExpiry, fullExpiry) - now < EXPIRING_MILLIS) {
                    redis.command("DEL", lean[key], full[key]);
                }
                else if (Math.max(leanExpiry, fullExpiry) - now < PERSISTED_MILLIS) {
                    redis.command("PERSIST", lean[key]);
                    redis.command("PERSIST", full[key]);
                }
            }
        }
    }

    @Override
    public void close() {
        redis.close();
    }

    private static List<?> withoutExpiry(List<?> key) {
        List<Object> rest = new ArrayList<>(key);
        rest.remove(1);
        return rest;
    }

    private void noteGap(long startNanos) {
        gapMillis = Math.max(gapMillis, (System.nanoTime() - startNanos + 999_999) / 1_000_000);
    }

    private Object evalSha(String sha, String[] keys, String... arguments) {
        List<String> command = new ArrayList<>(List.of("EVALSHA", sha, Integer.toString(keys.length)));
        command.addAll(List.of(keys));
        command.addAll(List.of(arguments));
        return redis.command(command.toArray(String[]::new));
    }

    private String load(String text) {
        return (String) redis.command("SCRIPT", "LOAD", text);
    }

    private static String[] keys(String name) {
        String value = LimiterNaming.valueKey(name);
        String permits = LimiterNaming.permitsKey(name);
        return new String[] {name, value, LimiterNaming.clientKey(value, CLIENT), permits,
            LimiterNaming.clientKey(permits, CLIENT)};
    }

    /** The files as one script, each ending with a new line, as the backend composes them. */
    static String script(String... names) {
        StringBuilder text = new StringBuilder();
        for (String name : names) {
            String path = "META-INF/scripts/redisson-ratelimit/" + name + ".lua";
            try (InputStream in = FastPathPair.class.getClassLoader().getResourceAsStream(path)) {
                if (in == null) {
                    throw new IllegalStateException(path + " is not on the class path");
                }
                String file = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                text.append(file.endsWith("\n") ? file : file + "\n");
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
        return text.toString();
    }
}
