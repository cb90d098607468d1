package io.github.redissonratelimit.redis;

import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * A limiter's config as RRateLimiter keeps it in its hash (interval and keep-alive in ms; type 0 for
 * OVERALL, 1 for PER_CLIENT, RRateLimiter's {@code RateType} ordinals).
 */
record StoredConfig(long rate, long intervalMillis, int type, long keepAliveMillis, String algorithm) {

    StoredConfig(long rate, long intervalMillis, int type, long keepAliveMillis) {
        this(rate, intervalMillis, type, keepAliveMillis, "sliding");
    }

    static StoredConfig declared(LimitSpec spec, BackendOptions options) {
        String algorithm = switch (spec.algorithm().type()) {
            case TOKEN_BUCKET -> "token-bucket:" + spec.algorithm().burst();
            case FIXED_WINDOW -> "fixed-window";
            default -> "sliding";
        };
        boolean sliding = algorithm.equals("sliding");
        return new StoredConfig(spec.rate(), spec.interval().toMillis(), AcquireScript.typeCode(spec.mode()),
                sliding ? options.keepAlive(spec.interval()).toMillis() : 0, algorithm);
    }

    @Override
    public String toString() {
        String mode = ", mode=" + (type == 1 ? "PER_CLIENT" : "OVERALL");
        return switch (algorithm.startsWith("token-bucket:") ? "token-bucket" : algorithm) {
            case "token-bucket" -> "token bucket, rate=" + rate + ", interval=" + intervalMillis + "ms, burst="
                    + algorithm.substring("token-bucket:".length()) + mode;
            case "fixed-window" -> "fixed window, rate=" + rate + ", window=" + intervalMillis + "ms" + mode;
            default -> "rate=" + rate + ", interval=" + intervalMillis + "ms" + mode + ", keepAlive="
                    + keepAliveMillis + "ms";
        };
    }
}
