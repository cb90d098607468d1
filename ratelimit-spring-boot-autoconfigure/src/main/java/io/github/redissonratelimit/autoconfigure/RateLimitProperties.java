package io.github.redissonratelimit.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.autoconfigure.web.RateLimitHeaderStyle;
import io.github.redissonratelimit.key.KeyStyle;
import io.github.redissonratelimit.limiter.ConfigChangePolicy;
import io.github.redissonratelimit.limiter.LimiterClock;

/**
 * Configuration of {@code @RateLimit}. Validates itself when bound: a wrong value fails startup with a
 * message that names the property.
 */
@ConfigurationProperties("ratelimit")
public class RateLimitProperties implements Validator {

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
     * How many limiter names each application instance remembers as initialized in Redis. Past that, the
     * least recently used are forgotten and cost one extra write on their next use.
     */
    private long knownLimiters = 100_000;

    /**
     * Order of the rate limit advice among other advisors. The default 0 runs it before @Transactional and
     * @Cacheable (lowest precedence by default), so a rejected call opens no transaction.
     */
    private int order = 0;

    /**
     * Limits by name: the values under ratelimit.policies.<name> override those of @RateLimit(name = "<name>").
     */
    private final Map<String, Policy> policies = new LinkedHashMap<>();

    /**
     * Values for every limit that neither its policy nor its annotation sets.
     */
    private final Defaults defaults = new Defaults();

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
    private final LocalRejection localRejection = new LocalRejection();

    /**
     * Sending decisions that arrive while others wait for Redis together, in one pipeline.
     */
    private final Pipelining pipelining = new Pipelining();

    /**
     * What a limit does when Redis gives no decision within backend-timeout (it is down, slow, or skipped
     * after repeated failures): 'allow' runs the call (fail open), 'deny' refuses it with HTTP 503 (see
     * deny-status). @RateLimit(onBackendError = ...) overrides it per limit.
     */
    private BackendErrorPolicy onBackendError = BackendErrorPolicy.ALLOW;

    /**
     * Longest a rate limit decision waits for Redis, whatever Redisson's own timeouts and retries are: a
     * Redis outage adds at most this to a call.
     */
    private Duration backendTimeout = Duration.ofMillis(100);

    /**
     * HTTP status of a call refused because Redis gave no decision (on-backend-error 'deny'): 503 (Service
     * Unavailable) or, to look like a rejection to clients, 429 (Too Many Requests).
     */
    private int denyStatus = 503;

    /**
     * After repeated failures Redis is skipped for a short while instead of making every call wait for it.
     */
    private final CircuitBreaker circuitBreaker = new CircuitBreaker();

    private final Headers headers = new Headers();

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
        if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("ratelimit.key-prefix must not contain '{' or '}': the limiter key already has a Redis "
                    + "Cluster hash tag around the key part; use a prefix such as 'myapp:rate_limit:'");
        }
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
        if (maxKeyLength < 51) {
            throw new IllegalArgumentException("ratelimit.max-key-length must be at least 51 (a cut key keeps a 43-character digest) but was "
                    + maxKeyLength);
        }
        this.maxKeyLength = maxKeyLength;
    }

    public long getKnownLimiters() {
        return knownLimiters;
    }

    public void setKnownLimiters(long knownLimiters) {
        if (knownLimiters < 1) {
            throw new IllegalArgumentException("ratelimit.known-limiters must be at least 1 but was " + knownLimiters);
        }
        this.knownLimiters = knownLimiters;
    }

    public int getOrder() {
        return order;
    }

    public void setOrder(int order) {
        this.order = order;
    }

    public Map<String, Policy> getPolicies() {
        return policies;
    }

    public Defaults getDefaults() {
        return defaults;
    }

    public boolean isRequirePolicies() {
        return requirePolicies;
    }

    public void setRequirePolicies(boolean requirePolicies) {
        this.requirePolicies = requirePolicies;
    }

    public Pipelining getPipelining() {
        return pipelining;
    }

    public LocalRejection getLocalRejection() {
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

    public BackendErrorPolicy getOnBackendError() {
        return onBackendError;
    }

    public void setOnBackendError(BackendErrorPolicy onBackendError) {
        if (onBackendError == null || onBackendError == BackendErrorPolicy.DEFAULT) {
            throw new IllegalArgumentException("ratelimit.on-backend-error must be 'allow' or 'deny' but was '"
                    + (onBackendError == null ? "" : onBackendError.name().toLowerCase()) + "'");
        }
        this.onBackendError = onBackendError;
    }

    public Duration getBackendTimeout() {
        return backendTimeout;
    }

    public void setBackendTimeout(Duration backendTimeout) {
        if (backendTimeout == null || backendTimeout.isNegative() || backendTimeout.isZero()) {
            throw new IllegalArgumentException("ratelimit.backend-timeout must be positive, e.g. 100ms, but was "
                    + backendTimeout);
        }
        this.backendTimeout = backendTimeout;
    }

    public int getDenyStatus() {
        return denyStatus;
    }

    public void setDenyStatus(int denyStatus) {
        if (denyStatus < 400 || denyStatus > 599) {
            throw new IllegalArgumentException("ratelimit.deny-status must be an HTTP error status such as 503 or 429 "
                    + "but was " + denyStatus);
        }
        this.denyStatus = denyStatus;
    }

    public CircuitBreaker getCircuitBreaker() {
        return circuitBreaker;
    }

    public Headers getHeaders() {
        return headers;
    }

    @Override
    public boolean supports(Class<?> type) {
        return RateLimitProperties.class.isAssignableFrom(type);
    }

    @Override
    public void validate(Object target, Errors errors) {
        RateLimitProperties properties = (RateLimitProperties) target;
        if (properties.keyTtl == null || properties.keyTtl.isNegative()) {
            errors.reject("ratelimit.key-ttl", "ratelimit.key-ttl must be 0 (no expiry) or positive but was "
                    + properties.keyTtl);
        }
        properties.defaults.validate("ratelimit.defaults.", errors);
        properties.policies.forEach((name, policy) -> policy.validate("ratelimit.policies." + name + ".", errors));
    }

    /** Values that can be set per policy and as defaults. */
    public static class LimitValues {

        /**
         * Permits granted per interval.
         */
        private Long rate;

        /**
         * Length of the window, e.g. 1s, 60s, 1m, 500ms.
         */
        private Duration interval;

        /**
         * 'overall': one bucket for all instances; 'per-client': one per Redisson client (application instance).
         */
        private RateLimitMode mode;

        /**
         * Permits one call takes.
         */
        private Long permits;

        public Long getRate() {
            return rate;
        }

        public void setRate(Long rate) {
            this.rate = rate;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public RateLimitMode getMode() {
            return mode;
        }

        public void setMode(RateLimitMode mode) {
            this.mode = mode;
        }

        public Long getPermits() {
            return permits;
        }

        public void setPermits(Long permits) {
            this.permits = permits;
        }

        void validate(String prefix, Errors errors) {
            if (rate != null && rate <= 0) {
                errors.reject(prefix + "rate", prefix + "rate must be greater than 0 but was " + rate);
            }
            if (interval != null && interval.toMillis() <= 0) {
                errors.reject(prefix + "interval", prefix + "interval must be at least 1ms but was " + interval);
            }
            if (permits != null && permits <= 0) {
                errors.reject(prefix + "permits", prefix + "permits must be greater than 0 but was " + permits);
            }
            if (permits != null && rate != null && permits > rate) {
                errors.reject(prefix + "permits", prefix + "permits (" + permits + ") must not exceed " + prefix
                        + "rate (" + rate + ")");
            }
        }
    }

    /** Values for what neither a policy nor an annotation sets. */
    public static class Defaults extends LimitValues {
    }

    /** One named limit. */
    public static class Policy extends LimitValues {

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

    /**
     * Once Redis has rejected a limiter and said when its permits come back, the same instance rejects
     * further calls for that limiter from memory until then, without a round trip. Exact: no permit can come
     * back before the oldest grant leaves the window. Do not use with RRateLimiter.release() or resetting a
     * limiter's state by other means on the same limiters.
     */
    public static class LocalRejection {

        /**
         * Whether calls to a limiter that Redis reported out of permits are rejected from memory until the
         * permits can be free.
         */
        private boolean enabled = true;

        /**
         * How many limiters out of permits each instance remembers at most; each is forgotten when its
         * permits can be free.
         */
        private long maxEntries = 10_000;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public long getMaxEntries() {
            return maxEntries;
        }

        public void setMaxEntries(long maxEntries) {
            if (maxEntries < 1) {
                throw new IllegalArgumentException("ratelimit.local-rejection.max-entries must be at least 1 but was "
                        + maxEntries + "; to turn local rejection off set ratelimit.local-rejection.enabled=false");
            }
            this.maxEntries = maxEntries;
        }
    }

    /** How concurrent decisions share round trips to Redis. */
    public static class Pipelining {

        /**
         * Whether a decision that arrives while max-in-flight pipelines wait for Redis is queued and sent with
         * the others queued meanwhile, in one pipeline. Each decision stays its own script call; only the
         * round trips are shared. When off, every decision is sent on its own at once.
         */
        private boolean enabled = true;

        /**
         * How many pipelines (or single decisions) each instance lets wait for Redis at once. 0 turns
         * pipelining off, like enabled=false: every decision is sent on its own at once.
         */
        private int maxInFlight = 3;

        /**
         * The most decisions one pipeline carries.
         */
        private int maxBatchSize = 64;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getMaxInFlight() {
            return maxInFlight;
        }

        public void setMaxInFlight(int maxInFlight) {
            if (maxInFlight < 0) {
                throw new IllegalArgumentException("ratelimit.pipelining.max-in-flight must be 0 (no pipelining) or more "
                        + "but was " + maxInFlight);
            }
            this.maxInFlight = maxInFlight;
        }

        public int getMaxBatchSize() {
            return maxBatchSize;
        }

        public void setMaxBatchSize(int maxBatchSize) {
            if (maxBatchSize < 1) {
                throw new IllegalArgumentException("ratelimit.pipelining.max-batch-size must be at least 1 but was "
                        + maxBatchSize);
            }
            this.maxBatchSize = maxBatchSize;
        }
    }

    /** When Redis is skipped after failures, and for how long. */
    public static class CircuitBreaker {

        /**
         * Consecutive failed or timed-out decisions after which Redis is skipped for open-duration.
         */
        private int failureThreshold = 5;

        /**
         * How long Redis is skipped once failure-threshold is reached; then one call probes it, and its
         * success resumes normal limiting.
         */
        private Duration openDuration = Duration.ofSeconds(1);

        public int getFailureThreshold() {
            return failureThreshold;
        }

        public void setFailureThreshold(int failureThreshold) {
            if (failureThreshold < 1) {
                throw new IllegalArgumentException("ratelimit.circuit-breaker.failure-threshold must be at least 1 but was "
                        + failureThreshold);
            }
            this.failureThreshold = failureThreshold;
        }

        public Duration getOpenDuration() {
            return openDuration;
        }

        public void setOpenDuration(Duration openDuration) {
            if (openDuration == null || openDuration.isNegative() || openDuration.isZero()) {
                throw new IllegalArgumentException("ratelimit.circuit-breaker.open-duration must be positive, e.g. 1s, "
                        + "but was " + openDuration);
            }
            this.openDuration = openDuration;
        }
    }

    /** Which rate limit headers HTTP responses carry, and their names. */
    public static class Headers {

        /**
         * Whether responses of limited calls (allowed and rejected) carry rate limit headers. 'Retry-After' on
         * HTTP 429 is sent either way.
         */
        private boolean enabled = true;

        /**
         * Which headers: 'ietf' for 'RateLimit-Policy' and 'RateLimit' (draft-ietf-httpapi-ratelimit-headers),
         * 'legacy' for 'X-RateLimit-Limit', 'X-RateLimit-Remaining' and 'X-RateLimit-Reset'.
         */
        private RateLimitHeaderStyle style = RateLimitHeaderStyle.IETF;

        /**
         * Whether allowed responses also report the permits left and when the next one returns. Free with the
         * Redis backend, whose decisions carry both; a custom backend whose decisions do not is asked with one
         * more round trip per limit. Without it, allowed responses carry the policy only; rejections always
         * report 0 permits left and the retry time.
         */
        private boolean remaining = true;

        /**
         * Name of the header that describes each limit's quota and window (ietf style).
         */
        private String policyHeader = "RateLimit-Policy";

        /**
         * Name of the header that reports the permits left and the seconds until they return (ietf style).
         */
        private String limitHeader = "RateLimit";

        /**
         * Name of the header that carries the rate of the tightest limit (legacy style).
         */
        private String legacyLimitHeader = "X-RateLimit-Limit";

        /**
         * Name of the header that carries the permits left (legacy style).
         */
        private String legacyRemainingHeader = "X-RateLimit-Remaining";

        /**
         * Name of the header that carries the seconds until a permit returns (legacy style).
         */
        private String legacyResetHeader = "X-RateLimit-Reset";

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public RateLimitHeaderStyle getStyle() {
            return style;
        }

        public void setStyle(RateLimitHeaderStyle style) {
            this.style = style;
        }

        public boolean isRemaining() {
            return remaining;
        }

        public void setRemaining(boolean remaining) {
            this.remaining = remaining;
        }

        public String getPolicyHeader() {
            return policyHeader;
        }

        public void setPolicyHeader(String policyHeader) {
            this.policyHeader = headerName("policy-header", policyHeader);
        }

        public String getLimitHeader() {
            return limitHeader;
        }

        public void setLimitHeader(String limitHeader) {
            this.limitHeader = headerName("limit-header", limitHeader);
        }

        public String getLegacyLimitHeader() {
            return legacyLimitHeader;
        }

        public void setLegacyLimitHeader(String legacyLimitHeader) {
            this.legacyLimitHeader = headerName("legacy-limit-header", legacyLimitHeader);
        }

        public String getLegacyRemainingHeader() {
            return legacyRemainingHeader;
        }

        public void setLegacyRemainingHeader(String legacyRemainingHeader) {
            this.legacyRemainingHeader = headerName("legacy-remaining-header", legacyRemainingHeader);
        }

        public String getLegacyResetHeader() {
            return legacyResetHeader;
        }

        public void setLegacyResetHeader(String legacyResetHeader) {
            this.legacyResetHeader = headerName("legacy-reset-header", legacyResetHeader);
        }

        /** RFC 9110 token characters only, so the name cannot break the response. */
        private static String headerName(String property, String name) {
            if (name == null || name.isEmpty() || !name.chars().allMatch(Headers::isTokenChar)) {
                throw new IllegalArgumentException("ratelimit.headers." + property + " must be an HTTP header name "
                        + "(letters, digits and !#$%&'*+-.^_`|~) but was '" + name + "'");
            }
            return name;
        }

        private static boolean isTokenChar(int c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
        }
    }
}
