package io.github.redissonratelimit.gateway;

import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.springframework.cloud.gateway.event.FilterArgsEvent;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.route.RouteDefinitionRouteLocator;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.expression.Expression;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.autoconfigure.DefaultsProperties;
import io.github.redissonratelimit.autoconfigure.KeyScope;
import io.github.redissonratelimit.interceptor.KeyedLimit;
import io.github.redissonratelimit.interceptor.RateLimitDecider;
import io.github.redissonratelimit.operation.RateLimitOperation;
import reactor.core.publisher.Mono;

/**
 * A Spring Cloud Gateway {@code RateLimiter} for the {@code RequestRateLimiter} filter that decides on the
 * redisson-ratelimit decision stack: a sliding window, a token bucket, fixed windows (also per calendar period) or
 * an in-flight limit stamped with Redis's clock, the outage policy, live reset and override by the route's limit
 * name, metrics and the IETF {@code RateLimit} headers. The permits of an in-flight limit are held until the exchange
 * ends (completed, failed or cancelled; {@link ExchangeEndFilter}). Each route's limit comes from
 * the filter's arguments ({@code redisson-rate-limiter.rate}, {@code .interval}, {@code .algorithm}, ...) or from
 * {@link #getConfig()}, or from Spring Cloud Gateway's {@code redis-rate-limiter.*} arguments
 * ({@link RedisRateLimiterArguments}); the key is what the filter's {@code KeyResolver} gives, counted in the route's
 * own limiter unless {@code key-scope} is {@code shared}.
 */
public class RedissonRouteRateLimiter extends AbstractRateLimiter<RedissonRouteRateLimiter.Config> {

    /** The prefix of this limiter's arguments in a route's filter definition. */
    public static final String CONFIGURATION_PROPERTY_NAME = "redisson-rate-limiter";

    private final RateLimitDecider decider;
    private final GatewayAnswers answers;
    private final ConfigurationService configurationService;
    private final EmptyKeys emptyKeys;
    private final RouteOperations operations;
    private final DefaultsProperties defaults;

    /**
     * @param declare told each route's limit once, so that it is listed, reset and overridden by name
     * @param defaults {@code ratelimit.defaults}: the algorithm and zone of a route that sets none
     */
    RedissonRouteRateLimiter(RateLimitDecider decider, GatewayAnswers answers, Consumer<List<RateLimitOperation>> declare,
            ConfigurationService configurationService, EmptyKeys emptyKeys, DefaultsProperties defaults) {
        super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
        this.decider = decider;
        this.answers = answers;
        this.operations = new RouteOperations(declare, defaults);
        this.defaults = defaults;
        this.configurationService = configurationService;
        this.emptyKeys = emptyKeys;
    }

    /**
     * Binds a route's {@code redisson-rate-limiter.*} arguments, or Spring Cloud Gateway's
     * {@code redis-rate-limiter.*} ones as a token bucket ({@link RouteArguments}); a limit that cannot work is
     * refused naming the route and the argument: the route is not built, and {@link RouteLimitCheck} fails startup.
     */
    @Override
    public void onApplicationEvent(FilterArgsEvent event) {
        Config config = RouteArguments.bind(event.getRouteId(), event.getArgs(), configurationService,
                defaults);
        if (config != null) {
            emptyKeys.route(event.getRouteId(), event.getArgs());
            getConfig().put(event.getRouteId(), config);
        }
    }

    /** Refuses, naming the route and the argument, a configured limit that cannot work ({@link RouteArguments}). */
    void checkAll() {
        RouteArguments.checkAll(getConfig(), defaults);
    }

    @Override
    public Mono<Response> isAllowed(String routeId, String id) {
        return Mono.deferContextual(context -> {
            RefusalSlot slot = context.getOrDefault(RefusalSlot.class, null);
            Config config = configOf(routeId);
            String limitName = limitName(config, routeId);
            if (id == null || id.isBlank()) {
                return Mono.just(answers.noKey(routeId, limitName, emptyKeys.refusal(routeId), slot));
            }
            if (config.refusesAll() != null) {
                return Mono.just(answers.refusedAll(limitName, config, slot));
            }
            RateLimitOperation operation = operations.of(routeId, config, id);
            String key = operation.callerKey().logicalKey(id);
            return Mono.fromCompletionStage(() -> decider.decide(List.of(new KeyedLimit(operation, key,
                    operation.permits()))).thenApply(decision -> ExchangeEndFilter.keepUntilTheEnd(context, decision)))
                    .map(decision -> answers.decided(decision, slot));
        });
    }

    private Config configOf(String routeId) {
        Config config = getConfig().get(routeId);
        if (config == null) {
            config = getConfig().get(RouteDefinitionRouteLocator.DEFAULT_FILTERS);
        }
        if (config == null) {
            throw new IllegalArgumentException("No " + CONFIGURATION_PROPERTY_NAME + " configuration for route '"
                    + routeId + "': set its filter's " + CONFIGURATION_PROPERTY_NAME + ".rate (and interval)");
        }
        return config;
    }

    static String limitName(Config config, String routeId) {
        return config.getName() != null && !config.getName().isBlank() ? config.getName() : routeId;
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
        /** Null: no lease. */
        private Duration lease;
        private String tier;
        private Map<String, Config> tiers = new java.util.LinkedHashMap<>();
        private KeyScope keyScope = KeyScope.ROUTE;
        private volatile Expression tierExpression;
        /** Null, or why the route refuses every request (a Spring Cloud Gateway bucket smaller than a request). */
        private String refusesAll;

        void refuseAll(String reason) {
            this.refusesAll = reason;
        }

        String refusesAll() {
            return refusesAll;
        }

        /** The tier {@link #setTier tier} gives the key, when {@link #setTiers tiers} configures it; else null. */
        String tierOf(String key) {
            if (tier == null || tier.isBlank() || tiers.isEmpty()) {
                return null;
            }
            Expression expression = tierExpression;
            if (expression == null) {
                expression = GatewayLimit.tierExpression(tier);
                tierExpression = expression;
            }
            return GatewayLimit.tierOf(expression, key, tiers.keySet());
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
         * How the route's limit counts: sliding window, token bucket, fixed window or in-flight (at most
         * {@code rate} exchanges at once, the {@link #setInterval interval} then being the lease period, 30 seconds
         * unless set); {@code DEFAULT}: a fixed window for a {@link #setCalendar calendar} quota, else the sliding
         * window. The tiers share it.
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

        public Duration getLease() {
            return lease;
        }

        /**
         * A lease period (e.g. 100ms), as {@code @RateLimit(lease)}: each instance takes the route's permits from Redis
         * in batches and spends them in memory for at most this long, the limit still exact when each permit is
         * spent. Any algorithm but in-flight, at most a tenth of the interval; null (the default): no lease. The tiers
         * share it.
         */
        public Config setLease(Duration lease) {
            this.lease = lease;
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

        public KeyScope getKeyScope() {
            return keyScope;
        }

        /**
         * Whose limiter a key counts in: {@code route} (the default), the route's own, keyed by its limit name and the
         * key, so that two routes with one {@code KeyResolver} count apart (routes that set the same {@code name}
         * share it); {@code shared}, the key alone, shared with every route whose key is the same.
         */
        public Config setKeyScope(KeyScope keyScope) {
            this.keyScope = keyScope;
            return this;
        }

        @Override
        public String toString() {
            return "[name=" + name + ", rate=" + rate + ", interval=" + interval + ", permits=" + permits + ", mode="
                    + mode + ", onBackendError=" + onBackendError + ", shadow=" + shadow + ", algorithm=" + algorithm
                     + ", burst=" + burst + ", calendar=" + calendar + ", zone=" + zone
                    + (lease == null ? "" : ", lease=" + lease) + ", tier=" + tier + ", tiers="
                    + tiers + ", keyScope=" + keyScope + (refusesAll == null ? "" : ", refuses every request") + "]";
        }
    }
}
