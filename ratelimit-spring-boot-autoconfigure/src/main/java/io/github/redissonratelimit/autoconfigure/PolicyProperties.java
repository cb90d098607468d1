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
}
