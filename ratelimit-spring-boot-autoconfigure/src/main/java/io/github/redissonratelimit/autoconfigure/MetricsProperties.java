package io.github.redissonratelimit.autoconfigure;

/** {@code ratelimit.metrics.*}: what the Micrometer meters of the decisions count. */
public class MetricsProperties {

    /**
     * Share of a limit's capacity (its rate, a token bucket's burst) under which the permits left by an allowed
     * decision count it in the meter 'ratelimit.near.limit': 0.2 counts the calls that reach 80 % of the limit.
     * Between 0 and 1; 0 turns the meter off.
     */
    private double nearLimitShare = 0.2;

    public double getNearLimitShare() {
        return nearLimitShare;
    }

    public void setNearLimitShare(double nearLimitShare) {
        this.nearLimitShare = nearLimitShare;
    }

    void validate(PropertyErrors errors) {
        errors.require(nearLimitShare >= 0 && nearLimitShare <= 1, "nearLimitShare", nearLimitShare,
                "must be between 0 (no near-limit meter) and 1", "0.2 counts the calls that reach 80 % of a limit");
    }
}
