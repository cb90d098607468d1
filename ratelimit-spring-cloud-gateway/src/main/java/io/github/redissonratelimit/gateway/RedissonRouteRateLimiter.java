package io.github.redissonratelimit.gateway;

import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.route.RouteDefinitionRouteLocator;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;
import org.springframework.http.HttpHeaders;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.autoconfigure.web.RateLimitHeaders;
import io.github.redissonratelimit.autoconfigure.web.ResponseLimits;
import io.github.redissonratelimit.interceptor.KeyedLimit;
import io.github.redissonratelimit.interceptor.RateLimitDecider;
import io.github.redissonratelimit.interceptor.RateLimitDecision;
import io.github.redissonratelimit.operation.RateLimitOperation;
import reactor.core.publisher.Mono;

/**
 * A Spring Cloud Gateway {@code RateLimiter} for the {@code RequestRateLimiter} filter that decides on the
 * redisson-ratelimit decision stack: a sliding window, a token bucket or fixed windows (also per calendar period)
 * stamped with Redis's clock, the outage policy, live reset and override by the route's limit name, metrics and the
 * IETF {@code RateLimit} headers. Each route's limit comes from
 * the filter's arguments ({@code redisson-rate-limiter.rate}, {@code .interval}, {@code .algorithm}, ...) or from
 * {@link #getConfig()}; the key is what the filter's {@code KeyResolver} gives.
 */
public class RedissonRouteRateLimiter extends AbstractRateLimiter<RedissonRouteRateLimiter.Config> {

    /** The prefix of this limiter's arguments in a route's filter definition. */
    public static final String CONFIGURATION_PROPERTY_NAME = "redisson-rate-limiter";

    private final RateLimitDecider decider;
    private final RateLimitHeaders headers;
    private final Consumer<List<RateLimitOperation>> declare;
    private final Map<String, RateLimitOperation> operations = new ConcurrentHashMap<>();

    /**
     * @param headers null: no rate limit headers
     * @param declare told each route's limit once, so that it is listed, reset and overridden by name
     */
    public RedissonRouteRateLimiter(RateLimitDecider decider, RateLimitHeaders headers,
            Consumer<List<RateLimitOperation>> declare, ConfigurationService configurationService) {
        super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
        this.decider = decider;
        this.headers = headers;
        this.declare = declare;
    }

    @Override
    public Mono<Response> isAllowed(String routeId, String id) {
        RateLimitOperation operation;
        try {
            operation = operationOf(routeId, id);
        }
        catch (RuntimeException ex) {
            return Mono.error(ex);
        }
        return Mono.fromCompletionStage(() -> decider.decide(List.of(new KeyedLimit(operation, id,
                operation.permits())))).map(this::response);
    }

    private Response response(RateLimitDecision decision) {
        decision.notifyListeners(null);
        Map<String, String> rendered = new java.util.LinkedHashMap<>();
        if (headers != null) {
            ResponseLimits limits = new ResponseLimits();
            limits.addAll(decision.outcomes());
            rendered.putAll(headers.render(limits.entries()));
        }
        RateLimitExceededException rejection = decision.rejection();
        if (rejection != null) {
            rendered.put(HttpHeaders.RETRY_AFTER, Long.toString(rejection.getRetryAfterSeconds()));
        }
        return new Response(decision.passed(), rendered);
    }

    /** The route's limit for the key's tier, built once per route, configuration and tier. */
    private RateLimitOperation operationOf(String routeId, String id) {
        Config config = getConfig().get(routeId);
        if (config == null) {
            config = getConfig().get(RouteDefinitionRouteLocator.DEFAULT_FILTERS);
        }
        if (config == null) {
            throw new IllegalArgumentException("No " + CONFIGURATION_PROPERTY_NAME + " configuration for route '"
                    + routeId + "': set its filter's " + CONFIGURATION_PROPERTY_NAME + ".rate (and interval)");
        }
        String tier = config.tierOf(id);
        Config current = tier == null ? config : config.forTier(tier);
        String key = routeId + '\u0000' + current;
        RateLimitOperation operation = operations.get(key);
        if (operation == null) {
            operation = operations.computeIfAbsent(key, ignored -> {
                RateLimitOperation built = GatewayLimit.operation(current, routeId);
                declare.accept(List.of(built));
                return built;
            });
        }
        return operation;
    }

    /** One route's limit: {@code redisson-rate-limiter.*} in the filter's arguments. */
    public static class Config {

        private String name;
        private long rate;
        /** Null: 1 second (a tier: the limit's own). */
        private Duration interval;
        /** 0: 1 (a tier: the limit's own). */
        private long permits;
        private RateLimitMode mode = RateLimitMode.OVERALL;
        private BackendErrorPolicy onBackendError = BackendErrorPolicy.DEFAULT;
        private boolean shadow;
        private RateLimitAlgorithm algorithm = RateLimitAlgorithm.DEFAULT;
        /** 0: the rate. */
        private long burst;
        private CalendarPeriod calendar = CalendarPeriod.NONE;
        /** Null: UTC. */
        private ZoneId zone;
        private String tier;
        private Map<String, Config> tiers = new java.util.LinkedHashMap<>();
        private volatile Expression tierExpression;

        /** The tier {@link #setTier tier} gives the key, when {@link #setTiers tiers} configures it; else null. */
        String tierOf(String key) {
            if (tier == null || tier.isBlank() || tiers.isEmpty()) {
                return null;
            }
            Expression expression = tierExpression;
            if (expression == null) {
                expression = new SpelExpressionParser().parseExpression(tier);
                tierExpression = expression;
            }
            SimpleEvaluationContext context = SimpleEvaluationContext.forReadOnlyDataBinding().withInstanceMethods()
                    .build();
            context.setVariable("key", key);
            Object value = expression.getValue(context);
            return value != null && tiers.containsKey(value.toString()) ? value.toString() : null;
        }

        /** This limit with the values {@code tiers.<tier>} sets. */
        Config forTier(String tierName) {
            return GatewayLimit.forTier(this, tiers.get(tierName));
        }

        public String getName() {
            return name;
        }

        /** The limit's name in headers, metrics and the actuator endpoint; the route's id by default. */
        public Config setName(String name) {
            this.name = name;
            return this;
        }

        public long getRate() {
            return rate;
        }

        public Config setRate(long rate) {
            this.rate = rate;
            return this;
        }

        public Duration getInterval() {
            return interval;
        }

        public Config setInterval(Duration interval) {
            this.interval = interval;
            return this;
        }

        public long getPermits() {
            return permits;
        }

        public Config setPermits(long permits) {
            this.permits = permits;
            return this;
        }

        public RateLimitMode getMode() {
            return mode;
        }

        public Config setMode(RateLimitMode mode) {
            this.mode = mode;
            return this;
        }

        public BackendErrorPolicy getOnBackendError() {
            return onBackendError;
        }

        public Config setOnBackendError(BackendErrorPolicy onBackendError) {
            this.onBackendError = onBackendError;
            return this;
        }

        public boolean isShadow() {
            return shadow;
        }

        public Config setShadow(boolean shadow) {
            this.shadow = shadow;
            return this;
        }

        public RateLimitAlgorithm getAlgorithm() {
            return algorithm;
        }

        /**
         * How the route's limit counts: sliding window, token bucket or fixed window; {@code DEFAULT}: a fixed
         * window for a {@link #setCalendar calendar} quota, else the sliding window. The tiers share it.
         */
        public Config setAlgorithm(RateLimitAlgorithm algorithm) {
            this.algorithm = algorithm;
            return this;
        }

        public long getBurst() {
            return burst;
        }

        /** The size of a token bucket; 0 (the default): the rate. Only with the token bucket. */
        public Config setBurst(long burst) {
            this.burst = burst;
            return this;
        }

        public CalendarPeriod getCalendar() {
            return calendar;
        }

        /** A quota per calendar period (a fixed window) instead of an interval; {@code NONE} (the default): none. */
        public Config setCalendar(CalendarPeriod calendar) {
            this.calendar = calendar;
            return this;
        }

        public ZoneId getZone() {
            return zone;
        }

        /** The zone of the calendar quota's periods; null (the default): UTC. */
        public Config setZone(ZoneId zone) {
            this.zone = zone;
            return this;
        }

        public String getTier() {
            return tier;
        }

        /**
         * SpEL over {@code #key} (what the filter's {@code KeyResolver} gave) for the key's tier, whose values come
         * from {@link #setTiers tiers}; a tier not configured, or null, uses this limit's own values.
         */
        public Config setTier(String tier) {
            this.tier = tier;
            this.tierExpression = null;
            return this;
        }

        public Map<String, Config> getTiers() {
            return tiers;
        }

        /** The rate, interval, permits and burst of each tier, each unset one this limit's own. */
        public Config setTiers(Map<String, Config> tiers) {
            this.tiers = tiers;
            return this;
        }

        @Override
        public String toString() {
            return "[name=" + name + ", rate=" + rate + ", interval=" + interval + ", permits=" + permits + ", mode="
                    + mode + ", onBackendError=" + onBackendError + ", shadow=" + shadow + ", algorithm=" + algorithm
                    + ", burst=" + burst + ", calendar=" + calendar + ", zone=" + zone + ", tier=" + tier + ", tiers="
                    + tiers + "]";
        }
    }
}
