package io.github.redissonratelimit.redis;

import java.time.Duration;
import java.util.Objects;

import io.github.redissonratelimit.naming.LimiterNaming;

/**
 * @param knownLimiters how many limiter names one JVM remembers as checked; past it the least recently
 * used are forgotten, and their next decision compares the stored config with the declared one again (in
 * the same script call)
 * @param keyTtl how long a limiter's keys live after its last use (never less than its interval);
 * {@link Duration#ZERO} keeps them forever
 * @param onConfigChange what to do when Redis holds another config than the declared one
 * @param pipelineInFlight how many pipelines of decisions may wait for Redis at once; 0 turns pipelining off:
 * each decision is sent on its own at once (see {@link AcquirePipeline}). {@code ratelimit.pipelining.max-in-flight}
 * means the same, and {@code ratelimit.pipelining.enabled=false} sets 0
 * @param pipelineBatchSize the most decisions one pipeline carries
 * @param clock whose clock stamps grants: Redis's (the default) or each calling instance's
 * @param naming the Redis names of the limiters of logical keys ({@code ratelimit.key-prefix}, key style, length)
 */
public record BackendOptions(long knownLimiters, Duration keyTtl, ConfigChangePolicy onConfigChange,
        int pipelineInFlight, int pipelineBatchSize, LimiterClock clock, LimiterNaming naming) {

    public static final int DEFAULT_PIPELINE_IN_FLIGHT = 3;

    public static final int DEFAULT_PIPELINE_BATCH_SIZE = 64;

    public static final BackendOptions DEFAULTS = new BackendOptions(100_000, Duration.ofHours(1),
            ConfigChangePolicy.UPDATE);

    public BackendOptions {
        Objects.requireNonNull(keyTtl, "keyTtl");
        Objects.requireNonNull(onConfigChange, "onConfigChange");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(naming, "naming");
        if (knownLimiters < 1) {
            throw new IllegalArgumentException("knownLimiters must be at least 1 but was " + knownLimiters);
        }
        if (keyTtl.isNegative()) {
            throw new IllegalArgumentException("keyTtl must not be negative but was " + keyTtl);
        }
        if (pipelineInFlight < 0) {
            throw new IllegalArgumentException("pipelineInFlight must not be negative but was " + pipelineInFlight);
        }
        if (pipelineBatchSize < 1) {
            throw new IllegalArgumentException("pipelineBatchSize must be at least 1 but was " + pipelineBatchSize);
        }
    }

    /** With the default pipelining, on Redis's clock. */
    public BackendOptions(long knownLimiters, Duration keyTtl, ConfigChangePolicy onConfigChange) {
        this(knownLimiters, keyTtl, onConfigChange, DEFAULT_PIPELINE_IN_FLIGHT, DEFAULT_PIPELINE_BATCH_SIZE);
    }

    /** On Redis's clock. */
    public BackendOptions(long knownLimiters, Duration keyTtl, ConfigChangePolicy onConfigChange,
            int pipelineInFlight, int pipelineBatchSize) {
        this(knownLimiters, keyTtl, onConfigChange, pipelineInFlight, pipelineBatchSize, LimiterClock.REDIS);
    }

    /** With the default names ({@code rate_limit:{<key>}}). */
    public BackendOptions(long knownLimiters, Duration keyTtl, ConfigChangePolicy onConfigChange,
            int pipelineInFlight, int pipelineBatchSize, LimiterClock clock) {
        this(knownLimiters, keyTtl, onConfigChange, pipelineInFlight, pipelineBatchSize, clock, new LimiterNaming());
    }

    /** These options with grants stamped by {@code clock}. */
    public BackendOptions withClock(LimiterClock clock) {
        return new BackendOptions(knownLimiters, keyTtl, onConfigChange, pipelineInFlight, pipelineBatchSize, clock,
                naming);
    }

    /** These options with limiters named by {@code naming}. */
    public BackendOptions withNaming(LimiterNaming naming) {
        return new BackendOptions(knownLimiters, keyTtl, onConfigChange, pipelineInFlight, pipelineBatchSize, clock,
                naming);
    }

    /** The keep-alive (TTL of its keys) a limiter with {@code interval} gets. */
    public Duration keepAlive(Duration interval) {
        if (keyTtl.isZero()) {
            return Duration.ZERO;
        }
        return keyTtl.compareTo(interval) < 0 ? interval : keyTtl;
    }
}
