package io.github.redissonratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The Lua scripts of the Redis backend, kept as resources under {@value #LOCATION} (each file starts with
 * what it takes and what it answers), loaded once. Each script is sent with {@code common.lua} in front of
 * it: Redis runs every script on its own, so the functions they share travel with each of them. The two
 * acquire scripts also carry {@code decide.lua}, the decision of one limiter they share. Comment lines are dropped
 * when loading.
 */
final class LuaScripts {

    static final String LOCATION = "META-INF/scripts/redisson-ratelimit/";

    static final String ACQUIRE = load("decide", "acquire");

    static final String ACQUIRE_MANY = load("decide", "acquire-many");

    static final String REFUND = load("refund");

    static final String STATE = load("state");

    static final String HEARTBEAT = withoutCommentLines(read("heartbeat"));

    private LuaScripts() {
    }

    private static String load(String... names) {
        StringBuilder script = new StringBuilder(read("common"));
        for (String name : names) {
            script.append('\n').append(read(name));
        }
        return withoutCommentLines(script.toString());
    }

    /** Drops whole-line comments and blank lines: they would only travel to Redis and sit in its script cache. */
    static String withoutCommentLines(String script) {
        StringBuilder out = new StringBuilder(script.length());
        for (String line : script.split("\n")) {
            String trimmed = line.strip();
            if (!trimmed.isEmpty() && !trimmed.startsWith("--")) {
                out.append(line).append('\n');
            }
        }
        return out.toString();
    }

    private static String read(String name) {
        String path = LOCATION + name + ".lua";
        try (InputStream in = LuaScripts.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("The script " + path + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not read " + path, ex);
        }
    }
}
