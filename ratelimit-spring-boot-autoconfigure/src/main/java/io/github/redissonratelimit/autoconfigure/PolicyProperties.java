package io.github.redissonratelimit.autoconfigure;

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
}
