package io.github.redissonratelimit.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.IntFunction;

import org.redisson.api.RAtomicLong;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;

/**
 * The three limiting algorithms the harness compares, in the order of its tables and chart, and the loads of
 * {@link RedisTimeScenario} that measure what one decision of each costs Redis: over limiters that allow every
 * decision ({@link Limits#GENEROUS_RATE} per second, the token bucket as large) and over full ones (1 per day, taken:
 * a day, so that no fixed window turns over during the run).
 */
enum Algorithms {

    SLIDING_WINDOW("sliding window", "sliding-window"),

    TOKEN_BUCKET("token bucket", "token-bucket"),

    FIXED_WINDOW("fixed window", "fixed-window");

    /** The commands whose {@code usec} are a decision's top-level cost: whatever way the backend calls its script. */
    static final List<String> SCRIPT_CALLS = List.of("evalsha", "eval", "evalsha_ro", "eval_ro", "fcall");

    /** The ids of the {@link #references} loads. */
    static final String INCR = "INCR";
    static final String RETURN_1 = "a script returning 1";
    static final String GCRA = "a minimal GCRA script";

    /** The script of the {@link #GCRA} reference (also what {@code tools/script-instructions.sh} counts). */
    static final String GCRA_SCRIPT = "reference-gcra.lua";

    private static final Duration DAY = Duration.ofDays(1);

    private final String label;

    private final String id;

    Algorithms(String label, String id) {
        this.label = label;
        this.id = id;
    }

    /** How the report names it. */
    String label() {
        return label;
    }

    /** How limiter names and logs name it. */
    String id() {
        return id;
    }

    /** {@code rate} per {@code interval} counted by this algorithm; a token bucket holds {@code burst}. */
    LimitSpec spec(long rate, Duration interval, long burst) {
        LimitAlgorithm algorithm = switch (this) {
            case SLIDING_WINDOW -> LimitAlgorithm.SLIDING_WINDOW;
            case TOKEN_BUCKET -> LimitAlgorithm.tokenBucket(burst);
            case FIXED_WINDOW -> LimitAlgorithm.fixedWindow();
        };
        return new LimitSpec(rate, interval, RateLimitMode.OVERALL, algorithm);
    }

    /** The allowed and the rejected load of every algorithm, through this project's Redis backend. */
    static List<RedisTimeScenario.Load> loads(RedissonRateLimitBackend backend) {
        return List.of(SLIDING_WINDOW.load(backend, true), TOKEN_BUCKET.load(backend, true),
                FIXED_WINDOW.load(backend, true), SLIDING_WINDOW.load(backend, false),
                TOKEN_BUCKET.load(backend, false), FIXED_WINDOW.load(backend, false));
    }

    /**
     * What Redis's time per decision is measured against on this machine: one {@code INCR} of a user's counter, one
     * call of a script that only returns 1 (the least any scripted decision costs), and a minimal GCRA
     * ({@link #GCRA_SCRIPT}: the least a token bucket on Redis's clock costs), allowed and rejected.
     */
    static List<RedisTimeScenario.Load> references(RedissonClient redisson) {
        RAtomicLong[] counters = new RAtomicLong[Users.COUNT];
        for (int user = 0; user < Users.COUNT; user++) {
            counters[user] = redisson.getAtomicLong("redis-time:incr:" + Users.id(user));
        }
        RScript script = redisson.getScript(StringCodec.INSTANCE);
        return List.of(new RedisTimeScenario.Load(INCR, true,
                        user -> counters[user].incrementAndGetAsync().thenApply(count -> true), List.of("incr")),
                new RedisTimeScenario.Load(RETURN_1, true, user -> script.<Boolean>evalAsync(RScript.Mode.READ_ONLY,
                        "return 1", RScript.ReturnType.BOOLEAN), SCRIPT_CALLS),
                gcra(script, true), gcra(script, false));
    }

    /** The {@link #GCRA} reference: a bucket as large as the allowed loads' limits, or one of 1 per day, taken. */
    private static RedisTimeScenario.Load gcra(RScript script, boolean allowed) {
        String source = gcraScript();
        String sha = script.scriptLoad(source);
        // µs per permit and the burst's µs: GENEROUS_RATE per second with a burst as large, or 1 per day
        List<Object> args = allowed ? List.of(String.valueOf(1e6 / Limits.GENEROUS_RATE), "1000000")
                : List.of(String.valueOf(DAY.toNanos() / 1_000), String.valueOf(DAY.toNanos() / 1_000));
        List<Object>[] keys = gcraKeys(allowed);
        if (!allowed) {
            for (List<Object> key : keys) {
                script.evalSha(RScript.Mode.READ_WRITE, sha, RScript.ReturnType.LIST, key, args.toArray());
            }
        }
        return new RedisTimeScenario.Load(GCRA, allowed, user -> script.<List<Long>>evalShaAsync(RScript.Mode.READ_WRITE,
                sha, RScript.ReturnType.LIST, keys[user], args.toArray()).thenApply(reply -> reply.get(0) == 0L),
                SCRIPT_CALLS);
    }

    @SuppressWarnings("unchecked")
    private static List<Object>[] gcraKeys(boolean allowed) {
        List<Object>[] keys = new List[Users.COUNT];
        for (int user = 0; user < Users.COUNT; user++) {
            keys[user] = List.of("redis-time:gcra:" + allowed + ":{" + Users.id(user) + "}");
        }
        return keys;
    }

    /** The source of {@link #GCRA_SCRIPT}. */
    static String gcraScript() {
        try (var in = Algorithms.class.getClassLoader().getResourceAsStream(GCRA_SCRIPT)) {
            if (in == null) {
                throw new IllegalStateException(GCRA_SCRIPT + " is not on the class path");
            }
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        catch (java.io.IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    private RedisTimeScenario.Load load(RedissonRateLimitBackend backend, boolean allowed) {
        LimiterNaming naming = new LimiterNaming();
        LimitSpec spec = allowed ? spec(Limits.GENEROUS_RATE, Duration.ofSeconds(1), Limits.GENEROUS_RATE)
                : spec(1, DAY, 1);
        AcquireRequest[] requests = new AcquireRequest[Users.COUNT];
        for (int user = 0; user < Users.COUNT; user++) {
            String name = naming.limiterName("redis-time:" + id + ":" + allowed + ":" + Users.id(user));
            requests[user] = AcquireRequest.of(name, spec, 1);
            if (!allowed && !backend.acquire(requests[user]).join().allowed()) {
                throw new IllegalStateException("The " + label + " of " + name + " refused its only permit");
            }
        }
        IntFunction<CompletionStage<Boolean>> decide =
                user -> backend.acquire(requests[user]).thenApply(Decision::allowed);
        return new RedisTimeScenario.Load(label, allowed, decide, SCRIPT_CALLS);
    }
}
