package io.github.redissonratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.redisson.api.RScript;
import org.redisson.api.RScriptAsync;
import org.redisson.client.RedisException;

import io.github.redissonratelimit.algorithm.Algorithms;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.Completions;

/**
 * The Lua scripts of the Redis backend, kept as resources under {@value #LOCATION} (each file starts with
 * what it takes and what it answers), loaded once. A script is the files it names, in that order: Redis runs every
 * script on its own, so the functions they share ({@code clock.lua}, {@code keyed.lua}, {@code common.lua}, each
 * algorithm's file) travel with each script that needs them, and a script carries no file it does not need, since
 * Redis runs a script's whole body on every call (each algorithm's own script is one file, without functions). The files are sent as
 * written, comments included (they cost Redis's script cache a few KB, and nothing per call: calls send the
 * script's SHA), so that each line Redis names ({@code user_script:<line>}) is a line of one file, which
 * {@link Script#locate} tells.
 *
 * <p>Public only for the instance heartbeat ({@link #heartbeatText()}); not part of the public API.
 */
public final class LuaScripts {

    static final String LOCATION = "META-INF/scripts/redisson-ratelimit/";

    /** A decision of a limiter of any algorithm, and of one whose algorithm changed (see switch.lua). */
    static final Script ACQUIRE = withAlgorithms("switch", "decide", "algorithms", "acquire");

    static final Script ACQUIRE_MANY = withAlgorithms("switch", "decide", "algorithms", "acquire-many");

    static final Script REFUND = withAlgorithms("refund");

    static final Script STATE = withAlgorithms("state");

    static final Script HEARTBEAT = Script.of("heartbeat");

    private static final Map<String, Script> OWN = new ConcurrentHashMap<>();

    static final Script WRITE_BACK = withAlgorithms("write-back");

    private LuaScripts() {
    }

    /**
     * The script made of the shared files ({@code clock}, {@code keyed}, {@code common}), every registered algorithm's
     * file ({@link Algorithms#files()}), then {@code files}.
     */
    private static Script withAlgorithms(String... files) {
        List<String> names = new ArrayList<>(List.of("clock", "keyed", "common"));
        names.addAll(Algorithms.files());
        names.addAll(List.of(files));
        return Script.of(names.toArray(String[]::new));
    }

    /**
     * The script that decides a limiter of {@code algorithm} alone in its common case (else it answers -4, and the call
     * is sent again as {@link #ACQUIRE}).
     */
    static Script ofAlgorithm(LimitAlgorithm algorithm) {
        return algorithm.script() == null ? ACQUIRE : OWN.computeIfAbsent(algorithm.script(), Script::of);
    }

    /** Every script of the backend, as {@code RedissonRateLimitBackend.loadScripts} loads them. */
    static List<Script> all() {
        List<Script> all = new ArrayList<>(List.of(ACQUIRE, ACQUIRE_MANY, REFUND, STATE, WRITE_BACK));
        Algorithms.scripts().forEach(name -> all.add(OWN.computeIfAbsent(name, Script::of)));
        return all;
    }

    /** What the instance heartbeat sends: {@code heartbeat.lua}. */
    public static String heartbeatText() {
        return HEARTBEAT.text();
    }

    /**
     * One script as Redis runs it: its files one after the other.
     *
     * @param text what is sent to Redis
     * @param files the files, in order
     * @param firstLines the line of {@code text} each file starts at (1-based)
     * @param lines the lines of {@code text}
     */
    record Script(String text, List<String> files, List<Integer> firstLines, int lines) {

        private static final Pattern SCRIPT_LINE = Pattern.compile("user_script:(\\d+)");

        static Script of(String... names) {
            StringBuilder text = new StringBuilder();
            List<String> files = new ArrayList<>();
            List<Integer> firstLines = new ArrayList<>();
            int line = 1;
            for (String name : names) {
                String file = read(name);
                if (!file.endsWith("\n")) {
                    file = file + "\n";
                }
                files.add(name + ".lua");
                firstLines.add(line);
                text.append(file);
                line += (int) file.chars().filter(c -> c == '\n').count();
            }
            return new Script(text.toString(), List.copyOf(files), List.copyOf(firstLines), line - 1);
        }

        /** The file and line ({@code decide.lua:42}) of line {@code line} of this script, or null past its ends. */
        String locate(int line) {
            if (line < 1 || line > lines) {
                return null;
            }
            int file = files.size() - 1;
            while (firstLines.get(file) > line) {
                file--;
            }
            return files.get(file) + ":" + (line - firstLines.get(file) + 1);
        }

        /**
         * Redis's error of a call of this script, when it names lines of the script ({@code user_script:<line>}),
         * as a {@link LimiterScriptException} that tells their files and lines too, caused by it; any other failure
         * as it is.
         */
        Throwable located(Throwable failure) {
            Throwable error = Completions.unwrap(failure);
            // Redisson's own types for Redis's refusals (OOM, READONLY ...) stay as they are
            if (error == null || error.getClass() != RedisException.class || error.getMessage() == null) {
                return error;
            }
            String located = withPlaces(error.getMessage());
            return located.equals(error.getMessage()) ? error : new LimiterScriptException(located, error);
        }

        /** {@code message} followed by the file and line of each line of this script it names, if any. */
        String withPlaces(String message) {
            Matcher lines = SCRIPT_LINE.matcher(message);
            List<String> places = new ArrayList<>();
            while (lines.find()) {
                String file = locate(Integer.parseInt(lines.group(1)));
                String place = "user_script:" + lines.group(1) + " is " + file;
                if (file != null && !places.contains(place)) {
                    places.add(place);
                }
            }
            return places.isEmpty() ? message : message + " [" + String.join(", ", places) + "]";
        }

        /** Calls the script, failing with {@link #located} errors. */
        <R> CompletableFuture<R> eval(RScriptAsync target, String key, RScript.Mode mode, RScript.ReturnType type,
                List<Object> keys, Object... arguments) {
            return target.<R>evalAsync(key, mode, text, type, keys, arguments).toCompletableFuture()
                    .handle((reply, ex) -> {
                        if (ex != null) {
                            throw new CompletionException(located(ex));
                        }
                        return reply;
                    });
        }

        @Override
        public String toString() {
            return String.join("+", files);
        }
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
