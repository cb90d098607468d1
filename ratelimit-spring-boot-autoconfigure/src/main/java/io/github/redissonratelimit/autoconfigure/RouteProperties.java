package io.github.redissonratelimit.autoconfigure;

import java.util.ArrayList;
import java.util.List;

/**
 * One limit on URLs, without an annotation: {@code ratelimit.routes.<name>.*}. Besides the values of a policy
 * (rate, interval, mode, permits, enabled, on-backend-error, shadow, tiers, algorithm, burst, calendar, zone,
 * lease), which paths and methods it covers and how a request is keyed (and in whose limiter). Expressions are
 * SpEL over the request: {@code remoteAddress}, {@code method}, {@code path}, {@code header['X-Api-Key']},
 * {@code param['user']}, {@code pathVariable['id']} and {@code principal} (the authenticated user's name, or null).
 */
public class RouteProperties extends PolicyProperties {

    /**
     * Path patterns the limit covers, in Spring's PathPattern syntax (/api/**, /orders/{id}); at least one.
     */
    private List<String> paths = new ArrayList<>();

    /**
     * HTTP methods the limit covers (GET, POST, ...); empty: every method.
     */
    private List<String> methods = new ArrayList<>();

    /**
     * SpEL over the request giving each caller's key, e.g. 'remoteAddress' or "header['X-Api-Key']"; a request
     * whose key is null or blank is answered 400. Empty: one limit for everyone the route covers.
     */
    private String key;

    /**
     * Whose limiter a keyed route counts in: route (its own: the logical key is <name>:<key>, so routes keyed alike
     * count apart and every caller of the route can be reset at once) or shared (the key alone, shared with every
     * route and limit whose key gives the same value: a bucket shared on purpose, or counts kept from versions that
     * named a route's limiters so).
     */
    private KeyScope keyScope = KeyScope.ROUTE;

    /**
     * SpEL over the request for the permits a request takes, instead of permits; 0 lets it through untaken.
     */
    private String cost;

    /**
     * SpEL over the request and #status (the response status) deciding after the response whether the request is
     * charged, e.g. '#status == 401' to count only failed logins; a request whose limit is spent is refused at once.
     * Empty: every request that passes is charged.
     */
    private String chargeWhen;

    /**
     * SpEL over the request for the caller's tier, whose values come from tiers.<tier>; a tier not listed, or null,
     * uses the route's own values.
     */
    private String tier;

    /**
     * The detail of the 429 problem response. Empty: Too many requests.
     */
    private String message;

    /**
     * Name of a ratelimit.policies entry whose rate, interval (or calendar), mode, permits, on-backend-error, shadow,
     * algorithm, burst, zone and lease the route takes for those it does not set itself; an unknown name fails
     * startup.
     */
    private String policy;

    public String getPolicy() {
        return policy;
    }

    public void setPolicy(String policy) {
        this.policy = policy;
    }

    public List<String> getPaths() {
        return paths;
    }

    public void setPaths(List<String> paths) {
        this.paths = paths;
    }

    public List<String> getMethods() {
        return methods;
    }

    public void setMethods(List<String> methods) {
        this.methods = methods;
    }

    public String getKey() {
        return key;
    }

    public void setKey(String key) {
        this.key = key;
    }

    public KeyScope getKeyScope() {
        return keyScope;
    }

    public void setKeyScope(KeyScope keyScope) {
        this.keyScope = keyScope;
    }

    public String getCost() {
        return cost;
    }

    public void setCost(String cost) {
        this.cost = cost;
    }

    public String getChargeWhen() {
        return chargeWhen;
    }

    public void setChargeWhen(String chargeWhen) {
        this.chargeWhen = chargeWhen;
    }

    public String getTier() {
        return tier;
    }

    public void setTier(String tier) {
        this.tier = tier;
    }

    public String getMessage() {
        return message;
    }

    public void setMessage(String message) {
        this.message = message;
    }

    @Override
    void validate(PropertyErrors errors) {
        super.validate(errors);
        if (paths.isEmpty()) {
            errors.reject("paths", "is empty: name at least one path pattern, e.g. /api/**");
        }
    }
}
