package io.github.redissonratelimit.limiter;

import java.util.Map;

import org.redisson.api.RateType;

/** A limiter's config as RRateLimiter keeps it in its hash (interval and keep-alive in ms). */
record StoredConfig(long rate, long intervalMillis, RateType type, long keepAliveMillis) {

    /** @return {@code null} when the hash is gone or incomplete */
    static StoredConfig parse(Map<String, String> hash) {
        String rate = hash.get("rate");
        String interval = hash.get("interval");
        String type = hash.get("type");
        if (rate == null || interval == null || type == null) {
            return null;
        }
        String keepAlive = hash.getOrDefault("keepAliveTime", "0");
        return new StoredConfig(Long.parseLong(rate), Long.parseLong(interval),
                RateType.values()[Integer.parseInt(type)], Long.parseLong(keepAlive));
    }

    @Override
    public String toString() {
        return "rate=" + rate + ", interval=" + intervalMillis + "ms, mode=" + type + ", keepAlive="
                + keepAliveMillis + "ms";
    }
}
