package io.github.redissonratelimit.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;

/** One named limit: {@code ratelimit.policies.<name>.*}. */
public class PolicyProperties extends LimitProperties {

    /**
     * Whether the limit applies; false lets the annotated methods run unlimited.
     */
    private boolean enabled = true;

    /**
     * What this limit does when Redis gives no decision in time ('allow' or 'deny'); overrides
     * @RateLimit(onBackendError) and ratelimit.on-backend-error. Unset or 'default': the annotation decides.
     */
    private BackendErrorPolicy onBackendError;

    /**
     * Shadow mode: true takes and records the limit's decisions (metric result 'shadow_rejected', one INFO line
     * per key and window) but never rejects a call; false enforces the limit even when @RateLimit(shadow = true).
     * Unset: the annotation decides.
     */
    private Boolean shadow;

    /**
     * Values per tier, for @RateLimit(name = "<name>", tier = "...") whose tier expression gives the tier's name:
     * rate, interval, mode and permits, each falling back to this policy's own. A tier not listed uses this
     * policy's own values.
     */
    private Map<String, LimitProperties> tiers = new LinkedHashMap<>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public BackendErrorPolicy getOnBackendError() {
        return onBackendError;
    }

    public void setOnBackendError(BackendErrorPolicy onBackendError) {
        this.onBackendError = onBackendError;
    }

    public Boolean getShadow() {
        return shadow;
    }

    public void setShadow(Boolean shadow) {
        this.shadow = shadow;
    }

    public Map<String, LimitProperties> getTiers() {
        return tiers;
    }

    public void setTiers(Map<String, LimitProperties> tiers) {
        this.tiers = tiers;
    }

    @Override
    void validate(PropertyErrors errors) {
        super.validate(errors);
        tiers.forEach((tier, values) -> errors.group("tiers[" + tier + "]", "tiers." + tier, values::validate));
    }
}
