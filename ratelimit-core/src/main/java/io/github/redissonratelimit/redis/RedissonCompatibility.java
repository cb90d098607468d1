package io.github.redissonratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.List;
import java.util.Properties;

import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RScriptAsync;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.Codec;

import io.github.redissonratelimit.UnsupportedRedissonVersionException;

/**
 * What the rate limiter needs of Redisson, resolved once for the Redisson on the class path, so that one jar
 * runs on Redisson 3.24.3 to 3.52.0 and on 4.x.
 *
 * <p>The project is compiled against Redisson 4, and uses of Redisson's API only what 3.24.3 already had, with one
 * exception: Redisson 4 renamed {@code RScript.ReturnType.INTEGER} and {@code MULTI} to {@code LONG} and
 * {@code LIST}. Compiled code refers to an enum constant by name, so a direct reference fails on 3.x with
 * {@code NoSuchFieldError}; {@link #LONG} and {@link #LIST} are looked up by name instead, whichever exists.
 *
 * <p>{@link #check(ClassLoader)} fails with {@link UnsupportedRedissonVersionException} when the Redisson found
 * is older than {@value #OLDEST} or lacks any of that API; the auto-configuration calls it at startup.
 */
public final class RedissonCompatibility {

    /**
     * The oldest Redisson the rate limiter runs on: where {@link UnsupportedRedissonVersionException#SUPPORTED_VERSIONS}
     * starts.
     */
    public static final String OLDEST = "3.24.3";

    /** Where the Redisson jar keeps its Maven coordinates. */
    public static final String POM_PROPERTIES_PATH = "META-INF/maven/org.redisson/redisson/pom.properties";

    /** The script reply type of a Lua integer: {@code LONG} in Redisson 4, {@code INTEGER} in 3.x; null if neither. */
    static final RScript.ReturnType LONG = returnType("LONG", "INTEGER");

    /** The script reply type of a Lua table: {@code LIST} in Redisson 4, {@code MULTI} in 3.x; null if neither. */
    public static final RScript.ReturnType LIST = returnType("LIST", "MULTI");

    /** The version that {@link #check()} accepted, so that it reads the class path once. */
    private static volatile String accepted;

    private RedissonCompatibility() {
    }

    /**
     * Checks the Redisson on the class path, with its version read through {@code classLoader} (the one the
     * application loads its classes with).
     *
     * @return the version found, or {@code unknown}
     * @throws UnsupportedRedissonVersionException naming the version found and the supported range
     */
    public static String check(ClassLoader classLoader) {
        String version = version(classLoader);
        check(version);
        return version;
    }

    /** {@link #check(ClassLoader)} with the class loader that loaded Redisson. */
    public static String check() {
        String version = accepted;
        if (version == null) {
            version = check(RScript.class.getClassLoader());
            accepted = version;
        }
        return version;
    }

    /**
     * Checks a Redisson of version {@code version} ({@code null} or {@code unknown}: the API is checked alone)
     * with the API that this JVM's Redisson has.
     */
    static void check(String version) {
        String found = version == null ? "unknown" : version;
        int[] parsed = parse(found);
        if (parsed != null && compare(parsed, parse(OLDEST)) < 0) {
            throw new UnsupportedRedissonVersionException(found, "it is older than " + OLDEST, null);
        }
        if (LONG == null || LIST == null) {
            throw new UnsupportedRedissonVersionException(found,
                    "its RScript.ReturnType has neither LONG nor INTEGER, or neither LIST nor MULTI", null);
        }
        try {
            RScriptAsync.class.getMethod("evalAsync", String.class, RScript.Mode.class, String.class,
                    RScript.ReturnType.class, List.class, Object[].class);
            RScriptAsync.class.getMethod("scriptLoadAsync", String.class);
            RedissonClient.class.getMethod("getId");
            RedissonClient.class.getMethod("getScript", Codec.class);
            RedissonClient.class.getMethod("createBatch");
            RBatch.class.getMethod("getScript", Codec.class);
            RBatch.class.getMethod("executeAsync");
        }
        catch (NoSuchMethodException | LinkageError ex) {
            throw new UnsupportedRedissonVersionException(found, "it lacks " + ex.getMessage(), ex);
        }
    }

    /** The version of the Redisson that {@code classLoader} finds, or {@code unknown}. */
    public static String version(ClassLoader classLoader) {
        URL pom = classLoader == null ? null : classLoader.getResource(POM_PROPERTIES_PATH);
        if (pom != null) {
            try (InputStream in = pom.openStream()) {
                Properties properties = new Properties();
                properties.load(in);
                String version = properties.getProperty("version");
                if (version != null && !version.isBlank()) {
                    return version.strip();
                }
            }
            catch (IOException ex) {
                // fall back to the manifest
            }
        }
        Package redisson = RScript.class.getPackage();
        String version = redisson == null ? null : redisson.getImplementationVersion();
        return version == null || version.isBlank() ? "unknown" : version.strip();
    }

    /** {@code 3.24.3} as {3, 24, 3}; a missing part is 0 and a suffix ({@code -SNAPSHOT}) is ignored; null if unreadable. */
    static int[] parse(String version) {
        String[] parts = version.split("[.-]", 4);
        int[] numbers = new int[3];
        for (int i = 0; i < 3 && i < parts.length; i++) {
            if (parts[i].isEmpty() || parts[i].length() > 6 || !parts[i].chars().allMatch(Character::isDigit)) {
                return i == 0 ? null : numbers;
            }
            numbers[i] = Integer.parseInt(parts[i]);
        }
        return numbers;
    }

    static int compare(int[] a, int[] b) {
        for (int i = 0; i < 3; i++) {
            if (a[i] != b[i]) {
                return Integer.compare(a[i], b[i]);
            }
        }
        return 0;
    }

    private static RScript.ReturnType returnType(String... names) {
        for (String name : names) {
            for (RScript.ReturnType type : RScript.ReturnType.values()) {
                if (type.name().equals(name)) {
                    return type;
                }
            }
        }
        return null;
    }
}
