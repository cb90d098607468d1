package io.github.redissonratelimit.autoconfigure;

import java.time.Duration;

import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.algorithm.AlgorithmSettingException;
import io.github.redissonratelimit.algorithm.Algorithms;
import io.github.redissonratelimit.algorithm.Setting;
import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;

/** One named limit: {@code ratelimit.policies.<name>.*}: the values of a tier, and those only a whole limit has. */
public class PolicyProperties extends TierProperties {

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
     * Lease period (e.g. 100ms): each instance takes the limit's permits from Redis in batches and spends them in
     * memory for at most this long, the limit still exact when each permit is spent. Any algorithm but in-flight, at most a
     * tenth of the interval. Unset: @RateLimit(lease) decides, for a route its policy's (off by default).
     */
    private Duration lease;

    public Duration getLease() {
        return lease;
    }

    public void setLease(Duration lease) {
        this.lease = lease;
    }

    /**
     * Values per tier, for @RateLimit(name = "<name>", tier = "...") whose tier expression gives the tier's name:
     * rate, interval, mode, permits and burst, each falling back to this policy's own (the algorithm is the policy's). A tier not listed uses this
     * policy's own values.
     */
    private Map<String, TierProperties> tiers = new LinkedHashMap<>();

    /**
     * How the limit counts its permits: 'sliding-window', 'token-bucket' or 'fixed-window'; overrides
     * @RateLimit(algorithm). Unset or 'default': the annotation decides (a calendar quota is a fixed window), else
     * ratelimit.defaults.algorithm.
     */
    private RateLimitAlgorithm algorithm;

    /**
     * A quota per calendar period ('hour', 'day', 'week', 'month' or 'year', in zone) instead of an interval, for a
     * fixed window; overrides @RateLimit(calendar) and replaces a declared interval. 'none': windows of the interval.
     * Unset: the annotation decides.
     */
    private CalendarPeriod calendar;

    /**
     * Zone of the calendar quota's periods, e.g. Europe/Berlin. Unset: ratelimit.defaults.zone, else UTC.
     */
    private ZoneId zone;

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

    public Map<String, TierProperties> getTiers() {
        return tiers;
    }

    public void setTiers(Map<String, TierProperties> tiers) {
        this.tiers = tiers;
    }

    public RateLimitAlgorithm getAlgorithm() {
        return algorithm;
    }

    public void setAlgorithm(RateLimitAlgorithm algorithm) {
        this.algorithm = algorithm;
    }

    public CalendarPeriod getCalendar() {
        return calendar;
    }

    public void setCalendar(CalendarPeriod calendar) {
        this.calendar = calendar;
    }

    public ZoneId getZone() {
        return zone;
    }

    public void setZone(ZoneId zone) {
        this.zone = zone;
    }

    @Override
    void validate(PropertyErrors errors) {
        super.validate(errors);
        validateAlgorithm(errors);
        tiers.forEach((tier, values) -> errors.group("tiers[" + tier + "]", "tiers." + tier, values::validate));
    }

    /**
     * What the policy alone shows cannot work, as the one resolution of a limit's algorithm finds it; its
     * combinations with the annotation are checked at startup. A burst is checked only against an algorithm the
     * policy sets (the annotation may set a token bucket), a zone only against a calendar period the policy sets.
     */
    private void validateAlgorithm(PropertyErrors errors) {
        RateLimitAlgorithm set = algorithm == null || algorithm == RateLimitAlgorithm.DEFAULT ? null : algorithm;
        try {
            Algorithms.resolve(new Algorithms.Choice(new Setting<>(1L, errors.name("rate")),
                    Setting.of(getInterval(), errors.name("interval")), null, Setting.of(set, errors.name("algorithm")),
                    errors.name("algorithm"), null, set == null ? null : Setting.of(getBurst(), errors.name("burst")),
                    Setting.of(calendar, errors.name("calendar")),
                    calendar == null ? null : Setting.of(zone, errors.name("zone")), null));
        }
        catch (AlgorithmSettingException ex) {
            String field = Stream.of("interval", "algorithm", "burst", "calendar", "zone")
                    .filter(name -> errors.name(name).equals(ex.getOrigin())).findFirst().orElse("algorithm");
            errors.reject(field, ex.getMessage());
        }
    }
}
