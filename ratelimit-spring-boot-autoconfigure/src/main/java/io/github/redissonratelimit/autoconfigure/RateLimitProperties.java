package io.github.redissonratelimit.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import io.github.redissonratelimit.autoconfigure.names.UnknownPropertyAction;
import io.github.redissonratelimit.naming.KeyStyle;
import io.github.redissonratelimit.redis.ConfigChangePolicy;
import io.github.redissonratelimit.redis.LimiterClock;

/**
 * Configuration of {@code @RateLimit}, with its groups in {@link LimitProperties} (defaults), {@link PolicyProperties},
 * {@link LocalRejectionProperties}, {@link PipeliningProperties}, {@link HeadersProperties} and {@link MetricsProperties}, and what happens while
 * Redis gives no decision in {@link RateLimitOutageProperties}. Validates itself when bound ({@link #validate(Object, Errors)}): wrong values fail
 * startup, all reported at once, each with a message that names the property, the value and what is expected.
 */
@ConfigurationProperties("ratelimit")
public class RateLimitProperties extends RateLimitOutageProperties implements Validator {

    /**
     * Whether methods annotated with @RateLimit are limited. When false, no rate limiting bean is created
     * and annotated methods run unlimited.
     */
    private boolean enabled = true;

    /**
     * Prefix of every limiter name in Redis. The limiter for key 'order:42' is '<prefix>{order:42}'; its
     * state lives in '<prefix>{order:42}:value' and '<prefix>{order:42}:permits'. Must not contain '{' or '}'.
     */
    private String keyPrefix = "rate_limit:";

    /**
     * How the key follows the prefix in a limiter's name: 'hash-tag' ('<prefix>{order:42}', a Redis Cluster
     * hash tag, so limiters spread over a cluster's slots) or 'plain' ('<prefix>order:42', no braces added: the
     * names of redisson.getRateLimiter("rate_limit:" + key), so the limiters of a hand-written RRateLimiter
     * aspect keep their counts when moving to this starter). Either way '{', '}', '%', spaces and control
     * characters in the key are escaped, and all of a limiter's keys stay in one slot.
     */
    private KeyStyle keyStyle = KeyStyle.HASH_TAG;

    /**
     * Longest key (after escaping) kept as written; a longer one is cut and ends in '~' plus the SHA-256 of
     * the whole key, so Redis keys stay bounded whatever the key expression returns. At least 51.
     */
    private int maxKeyLength = 200;

    /**
     * How many limiter names each application instance remembers as checked against their config in Redis. Past
     * that, the least recently used are forgotten; the next decision of a forgotten one compares the config in
     * Redis with the declared one again, inside the same acquire script call (no extra call).
     */
    private long knownLimiters = 100_000;

    /**
     * What to do with a property under 'ratelimit.' that names no setting (e.g. 'ratelimit.polices.x.rate'), which
     * would otherwise be ignored: 'fail' stops startup naming it and the nearest valid name, 'warn' logs them
     * once, 'ignore' lets them pass.
     */
    private UnknownPropertyAction unknownProperties = UnknownPropertyAction.FAIL;

    /**
     * Order of the rate limit advice among other advisors. The default 0 runs it before @Transactional and
     * @Cacheable (lowest precedence by default), so a rejected call opens no transaction.
     */
    private int order = 0;

    /**
     * Limits by name: the values under ratelimit.policies.<name> override those of @RateLimit(name = "<name>").
     */
    private final Map<String, PolicyProperties> policies = new LinkedHashMap<>();

    /**
     * Limits on URL patterns, without annotations: ratelimit.routes.<name>.paths, key and the values of a policy.
     */
    private final Map<String, RouteProperties> routes = new LinkedHashMap<>();

    /**
     * Order of the filter that applies ratelimit.routes. The default -110 runs it before Spring Security's filter
     * chain (-100), so floods are refused before authentication; set -90 to run after it and key by the principal.
     */
    private int routeFilterOrder = -110;

    /**
     * Values for every limit that neither its policy nor its annotation sets.
     */
    @NestedConfigurationProperty
    private final DefaultsProperties defaults = new DefaultsProperties();

    /**
     * Whether every @RateLimit that declares a name must have a policy under ratelimit.policies.<name>; a missing
     * one fails startup.
     */
    private boolean requirePolicies = false;

    /**
     * What to do when a limiter in Redis has another rate, interval, mode or key TTL than declared: 'update'
     * applies the new config and keeps the current window's grants, 'reset' applies it with a full bucket,
     * 'keep' leaves Redis as it is and logs a warning. Checked by the first decision of each limiter on each instance,
     * in the same script call.
     */
    private ConfigChangePolicy onConfigChange = ConfigChangePolicy.UPDATE;

    /**
     * Whose clock stamps grants and decides when they leave the window: 'redis' (Redis's own TIME, read inside
     * each script, so every instance and every call in flight is judged by one clock) or 'client' (each
     * instance's clock, as RRateLimiter's own tryAcquire stamps; only for applications that also call
     * RRateLimiter's acquire on the same limiters: clocks that differ between instances then let a window
     * hold more than the rate).
     */
    private LimiterClock clock = LimiterClock.REDIS;

    /**
     * How long a limiter's keys stay in Redis after its last use (RRateLimiter keep-alive), so keys of callers
     * that stopped calling disappear. Never shorter than the limit's interval; 0 keeps keys forever.
     */
    private Duration keyTtl = Duration.ofHours(1);

    /**
     * Rejecting floods from memory.
     */
    @NestedConfigurationProperty
    private final LocalRejectionProperties localRejection = new LocalRejectionProperties();

    /**
     * Sending decisions that arrive while others wait for Redis together, in one pipeline.
     */
    @NestedConfigurationProperty
    private final PipeliningProperties pipelining = new PipeliningProperties();

    /**
     * Rate limit headers on HTTP responses.
     */
    @NestedConfigurationProperty
    private final HeadersProperties headers = new HeadersProperties();

    /**
     * What the Micrometer meters of the decisions count.
     */
    @NestedConfigurationProperty
    private final MetricsProperties metrics = new MetricsProperties();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public KeyStyle getKeyStyle() {
        return keyStyle;
    }

    public void setKeyStyle(KeyStyle keyStyle) {
        this.keyStyle = keyStyle;
    }

    public int getMaxKeyLength() {
        return maxKeyLength;
    }

    public void setMaxKeyLength(int maxKeyLength) {
        this.maxKeyLength = maxKeyLength;
    }

    public long getKnownLimiters() {
        return knownLimiters;
    }

    public void setKnownLimiters(long knownLimiters) {
        this.knownLimiters = knownLimiters;
    }

    public UnknownPropertyAction getUnknownProperties() {
        return unknownProperties;
    }

    public void setUnknownProperties(UnknownPropertyAction unknownProperties) {
        this.unknownProperties = unknownProperties;
    }

    public int getOrder() {
        return order;
    }

    public void setOrder(int order) {
        this.order = order;
    }

    public Map<String, PolicyProperties> getPolicies() {
        return policies;
    }

    public Map<String, RouteProperties> getRoutes() {
        return routes;
    }

    public int getRouteFilterOrder() {
        return routeFilterOrder;
    }

    public void setRouteFilterOrder(int routeFilterOrder) {
        this.routeFilterOrder = routeFilterOrder;
    }

    public DefaultsProperties getDefaults() {
        return defaults;
    }

    public boolean isRequirePolicies() {
        return requirePolicies;
    }

    public void setRequirePolicies(boolean requirePolicies) {
        this.requirePolicies = requirePolicies;
    }

    public PipeliningProperties getPipelining() {
        return pipelining;
    }

    public LocalRejectionProperties getLocalRejection() {
        return localRejection;
    }

    public ConfigChangePolicy getOnConfigChange() {
        return onConfigChange;
    }

    public LimiterClock getClock() {
        return clock;
    }

    public void setClock(LimiterClock clock) {
        this.clock = clock;
    }

    public void setOnConfigChange(ConfigChangePolicy onConfigChange) {
        this.onConfigChange = onConfigChange;
    }

    public Duration getKeyTtl() {
        return keyTtl;
    }

    public void setKeyTtl(Duration keyTtl) {
        this.keyTtl = keyTtl;
    }

    public HeadersProperties getHeaders() {
        return headers;
    }

    public MetricsProperties getMetrics() {
        return metrics;
    }

    @Override
    public boolean supports(Class<?> type) {
        return RateLimitProperties.class.isAssignableFrom(type);
    }

    /**
     * Checks every value once bound, all at once: each message starts with the property's name and says the value
     * and what to set instead. Spring Boot calls it for a {@code @ConfigurationProperties} object that is a
     * {@link Validator}; it is the one place where {@code ratelimit.*} values are checked.
     */
    @Override
    public void validate(Object target, Errors errors) {
        ((RateLimitProperties) target).validate(new PropertyErrors(errors, "ratelimit."));
    }

    private void validate(PropertyErrors errors) {
        errors.require(keyPrefix != null && keyPrefix.indexOf('{') < 0 && keyPrefix.indexOf('}') < 0, "keyPrefix",
                "'" + keyPrefix + "'", "must not contain '{' or '}'", "the limiter key already has a Redis Cluster hash "
                        + "tag around the key part: use a prefix such as 'myapp:rate_limit:'");
        errors.require(maxKeyLength >= 51, "maxKeyLength", maxKeyLength,
                "must be at least 51 (a cut key keeps a 43-character digest)");
        errors.atLeast(1, "knownLimiters", knownLimiters);
        errors.require(keyTtl != null && !keyTtl.isNegative(), "keyTtl", keyTtl, "must be 0 (no expiry) or positive");
        validateOutage(errors);
        errors.group("defaults", defaults::validateAsDefaults);
        policies.forEach((name, policy) -> errors.group("policies[" + name + "]", "policies." + name, policy::validate));
        routes.forEach((name, route) -> errors.group("routes[" + name + "]", "routes." + name, route::validate));
        errors.group("localRejection", localRejection::validate);
        errors.group("pipelining", pipelining::validate);
        errors.group("headers", headers::validate);
        errors.group("metrics", metrics::validate);
    }
}
