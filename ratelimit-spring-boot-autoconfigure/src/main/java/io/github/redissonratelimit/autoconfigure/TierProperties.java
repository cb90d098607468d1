package io.github.redissonratelimit.autoconfigure;

/**
 * The values of one tier ({@code ratelimit.policies.<name>.tiers.<tier>.*}): those of a limit, and the burst of a
 * token bucket. A tier shares the algorithm of its limit.
 */
public class TierProperties extends LimitProperties {

    /**
     * Size of the token bucket (algorithm 'token-bucket'): the permits a caller that has been idle can take at once;
     * unset: the rate.
     */
    private Long burst;

    public Long getBurst() {
        return burst;
    }

    public void setBurst(Long burst) {
        this.burst = burst;
    }

    @Override
    void validate(PropertyErrors errors) {
        super.validate(errors);
        errors.require(burst == null || burst > 0, "burst", burst, "must be greater than 0");
        if (burst != null && getPermits() != null && getPermits() > burst) {
            errors.reject("permits", errors.name("permits") + " (" + getPermits() + ") must not exceed "
                    + errors.name("burst") + " (" + burst + ")");
        }
    }

    /** Whether permits fit the rate: checked against the burst instead when one is set. */
    @Override
    boolean permitsBoundedByRate() {
        return burst == null;
    }
}
