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
import io.github.redissonratelimit.limiter.LimitAlgorithm;
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
     * What Redis's time per decision is measured against on this machine: one {@code INCR} of a user's counter, and
     * one call of a script that only returns 1 (the least any scripted decision costs).
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
                        "return 1", RScript.ReturnType.BOOLEAN), SCRIPT_CALLS));
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
