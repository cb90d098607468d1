package io.github.redissonratelimit.redis;

import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * A limiter's config as the scripts report it (interval and keep-alive in ms; type 0 for OVERALL, 1 for PER_CLIENT,
 * RRateLimiter's {@code RateType} ordinals; the algorithm as its stored state names it, see
 * {@code LimitAlgorithm.storedName}).
 */
record StoredConfig(long rate, long intervalMillis, int type, long keepAliveMillis, String algorithm) {

    static StoredConfig declared(LimitSpec spec, BackendOptions options) {
        return new StoredConfig(spec.rate(), spec.interval().toMillis(), AcquireScript.typeCode(spec.mode()),
                spec.algorithm().keepsAlive() ? options.keepAlive(spec.interval()).toMillis() : 0,
                spec.algorithm().storedName());
    }

    @Override
    public String toString() {
        return "rate=" + rate + ", interval=" + intervalMillis + "ms, mode=" + (type == 1 ? "PER_CLIENT" : "OVERALL")
                + (keepAliveMillis > 0 ? ", keepAlive=" + keepAliveMillis + "ms" : "")
                + (algorithm.equals(LimitAlgorithm.SLIDING_WINDOW.storedName()) ? "" : ", " + algorithm);
    }
}
