package io.github.redissonratelimit.redis;

import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * A limiter's config as RRateLimiter keeps it in its hash (interval and keep-alive in ms; type 0 for
 * OVERALL, 1 for PER_CLIENT, RRateLimiter's {@code RateType} ordinals).
 */
record StoredConfig(long rate, long intervalMillis, int type, long keepAliveMillis) {

    static StoredConfig declared(LimitSpec spec, BackendOptions options) {
        return new StoredConfig(spec.rate(), spec.interval().toMillis(), AcquireScript.typeCode(spec.mode()),
                options.keepAlive(spec.interval()).toMillis());
    }

    @Override
    public String toString() {
        return "rate=" + rate + ", interval=" + intervalMillis + "ms, mode=" + (type == 1 ? "PER_CLIENT" : "OVERALL")
                + ", keepAlive=" + keepAliveMillis + "ms";
    }
}
