package io.github.redissonratelimit.autoconfigure;

import java.time.Duration;

/**
 * {@code ratelimit.local-fallback.*}: how limits under the {@code local} outage policy (the default
 * {@code ratelimit.on-backend-error}) decide while Redis gives none. Each instance grants its share of every rate,
 * rate / N per interval, where N is the number of instances sharing the limits: counted from a heartbeat each
 * instance keeps in Redis (the last count seen before the outage), unless {@code instances} fixes it.
 */
public class LocalFallbackProperties {

    /**
     * How many instances share the limits, which each rate is divided by during an outage; 0 counts them from
     * their heartbeats in Redis. Set it when the count is known and fixed, or when instances start while Redis is
     * down.
     */
    private int instances = 0;

    /**
     * How often each instance writes its heartbeat to Redis; an instance counts as live for three intervals after
     * its last one, and stays in the count for 10 intervals after it stops beating.
     */
    private Duration heartbeatInterval = Duration.ofSeconds(5);

    /**
     * How many limiters each instance remembers its own grants of (least recently used go first); a limiter
     * not remembered starts an outage with this instance's full share.
     */
    private long maxLimiters = 100_000;

    public int getInstances() {
        return instances;
    }

    public void setInstances(int instances) {
        this.instances = instances;
    }

    public Duration getHeartbeatInterval() {
        return heartbeatInterval;
    }

    public void setHeartbeatInterval(Duration heartbeatInterval) {
        this.heartbeatInterval = heartbeatInterval;
    }

    public long getMaxLimiters() {
        return maxLimiters;
    }

    public void setMaxLimiters(long maxLimiters) {
        this.maxLimiters = maxLimiters;
    }

    void validate(PropertyErrors errors) {
        errors.require(instances >= 0, "instances", instances, "must be 0 (counted from heartbeats) or positive");
        errors.require(heartbeatInterval != null && heartbeatInterval.toMillis() >= 100, "heartbeatInterval",
                heartbeatInterval, "must be at least 100ms, e.g. 5s,");
        errors.atLeast(1, "maxLimiters", maxLimiters);
    }
}
