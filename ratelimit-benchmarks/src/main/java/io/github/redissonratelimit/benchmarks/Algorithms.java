package io.github.redissonratelimit.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.IntFunction;

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
