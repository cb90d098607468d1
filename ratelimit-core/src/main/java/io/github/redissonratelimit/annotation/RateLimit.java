package io.github.redissonratelimit.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.TimeUnit;

/**
 * Limits how often the annotated method (or every public method of the annotated class) may be
 * called, across every instance of the application, with a Redisson {@code RRateLimiter}.
 *
 * <p>A call that finds no permit throws
 * {@link io.github.redissonratelimit.RateLimitExceededException}; in a Spring MVC application the
 * starter turns it into HTTP 429 with {@code Retry-After}.
 *
 * <p>May be used as a meta-annotation: {@code @RateLimit(rate = 5, interval = 60) @interface OrderLimit {}}.
 *
 * <p>Repeatable: several limits on one method are checked in the order they are declared, and a call
 * must pass all of them. When a later limit rejects the call, the permits the earlier ones granted are
 * given back, so a rejected call consumes nothing.
 *
 * <p>Methods returning {@code Mono}, {@code Flux} (or another deferred reactive type) are limited when
 * subscribed, and methods returning {@code CompletableFuture} or {@code CompletionStage} before they
 * run, without blocking the calling thread in either case.
 *
 * <pre class="code">
 * &#64;RateLimit(key = "'order:submit:' + #userId", rate = 5, interval = 60)
 * public Order submit(String userId, OrderRequest request) { ... }
 * </pre>
 */
@Target({ElementType.METHOD, ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Repeatable(RateLimits.class)
public @interface RateLimit {

    /**
     * The limit's name. With an empty {@link #key()} it identifies the limiter in Redis, so
     * methods that carry the same name share one limit; it is also the name shown in errors and logs,
     * and the name of its policy in properties: {@code ratelimit.policies.<name>.rate} etc. override
     * the values declared here. Empty: the method (or, for a class-level annotation, the class)
     * identifies the limit.
     */
    String name() default "";

    /**
     * SpEL expression for the limited subject, evaluated per call: method arguments by name
     * ({@code #userId}, needs {@code -parameters}) or by index ({@code #p0}, {@code #a0}),
     * {@code @beanName} references, and the root object's {@code method}, {@code methodName},
     * {@code args}, {@code target} and {@code targetClass}. Each distinct value gets its own limit.
     * Empty: one limit for the method (or {@link #name()}).
     */
    String key() default "";

    /**
     * Permits granted per window; must end up greater than zero. 0: taken from the named policy
     * or {@code ratelimit.defaults.rate}.
     */
    long rate() default 0;

    /**
     * Length of the window in {@link #unit()}. 0 (and no {@link #window()}): taken from the named policy
     * or {@code ratelimit.defaults.interval}, else 1 second. Not with {@link #calendar()}, whose period is the window.
     */
    long interval() default 0;

    /** Unit of {@link #interval()}. */
    TimeUnit unit() default TimeUnit.SECONDS;

    /**
     * The window as a duration string instead of {@link #interval()} + {@link #unit()}: ISO-8601
     * ({@code PT1M}) or a number with {@code ms}, {@code s}, {@code m}, {@code h} or {@code d}
     * ({@code 500ms}, {@code 60s}, {@code 1m}).
     */
    String window() default "";

    /**
     * How the limiter counts its permits: {@link RateLimitAlgorithm#SLIDING_WINDOW},
     * {@link RateLimitAlgorithm#TOKEN_BUCKET} or {@link RateLimitAlgorithm#FIXED_WINDOW} (see
     * {@code docs/algorithms.md}). A policy's {@code ratelimit.policies.<name>.algorithm} overrides it.
     * {@link RateLimitAlgorithm#DEFAULT}: taken from the named policy, else {@link RateLimitAlgorithm#FIXED_WINDOW}
     * for a {@link #calendar()} quota, else {@code ratelimit.defaults.algorithm}, else the sliding window. The
     * limiters of one key must all use one algorithm: changing it starts the key's counting afresh.
     */
    RateLimitAlgorithm algorithm() default RateLimitAlgorithm.DEFAULT;

    /**
     * The size of a {@link RateLimitAlgorithm#TOKEN_BUCKET token bucket}: how many permits a caller that has been
     * idle can take at once, while the bucket refills at {@link #rate()} per window. Only for a token bucket (any
     * other algorithm fails at startup). 0: the named policy's {@code burst}, else the rate.
     */
    long burst() default 0;

    /**
     * A quota per calendar period ({@link CalendarPeriod#HOUR hour}, day, ISO week, month or year) that resets at
     * the start of each period in the zone of {@code ratelimit.policies.<name>.zone} or {@code ratelimit.defaults.zone}
     * (UTC unless set), e.g. {@code @RateLimit(rate = 10000, calendar = CalendarPeriod.MONTH)}. Implies
     * {@link RateLimitAlgorithm#FIXED_WINDOW} when {@link #algorithm()} is {@code DEFAULT}; refused with the sliding
     * window or the token bucket, and together with {@link #interval()} or {@link #window()} (the period is the
     * window). A policy's {@code calendar} or {@code interval} overrides it. {@link CalendarPeriod#NONE}: windows of
     * the interval.
     */
    CalendarPeriod calendar() default CalendarPeriod.NONE;

    /**
     * Whether all instances share one bucket or each Redisson client has its own. A policy's
     * {@code ratelimit.policies.<name>.mode} overrides it. {@link RateLimitMode#DEFAULT}: taken from the named
     * policy or {@code ratelimit.defaults.mode}, else {@link RateLimitMode#OVERALL}.
     */
    RateLimitMode mode() default RateLimitMode.DEFAULT;

    /**
     * Permits one call takes; at most the rate (for a token bucket, its burst). 0: taken from the named policy or
     * {@code ratelimit.defaults.permits}, else 1. For a cost that depends on the call, see {@link #cost()}.
     */
    long permits() default 0;

    /**
     * SpEL expression, over the same variables as {@link #key()}, for the permits one call takes, evaluated per
     * call after {@link #condition()} and {@link #skipIf()}: e.g. {@code "#items.size()"} for a batch that costs
     * one permit per item. It must give a whole number: 0 takes nothing (the limit is skipped for that call, like
     * a false condition); a negative number, one above the rate (a token bucket's burst), or no number at all refuses the call with
     * {@link io.github.redissonratelimit.RateLimitCostException} (HTTP 400 naming the limit). Not combined with
     * {@link #permits()} (a fixed cost) or a policy's {@code permits}: that fails at startup. Empty: the call takes
     * {@link #permits()}.
     */
    String cost() default "";

    /**
     * Shadow mode, to roll a new limit out without enforcing it: the decision is taken against Redis as usual and
     * recorded (metric {@code ratelimit.requests} with {@code result=shadow_rejected}, one INFO log line per key
     * and window), but the call always runs: a rejection takes no permits and throws nothing, no fallback is
     * called, Redis errors never deny the call, and the call never waits ({@link #waitTimeout()} is not used).
     * The permits of an allowed call are taken, so the limiter shows what enforcing it would have let through.
     * A shadow limit adds no HTTP rate limit headers. A policy's {@code ratelimit.policies.<name>.shadow}
     * overrides this, either way.
     */
    boolean shadow() default false;

    /**
     * SpEL expression, over the same variables as {@link #key()}, for the tier of the call's caller, e.g.
     * {@code "@plans.planOf(#apiKey)"}: the call is limited by the values of that tier in the named policy
     * ({@code ratelimit.policies.<name>.tiers.<tier>.rate}, {@code interval}, {@code mode}, {@code permits}), each
     * falling back to the policy's own value. A tier the policy does not configure (or {@code null}) uses the
     * policy's own values; an expression that fails refuses the call
     * ({@link io.github.redissonratelimit.RateLimitConditionException}, HTTP 400). Needs {@link #name()} and a
     * policy with tiers, checked at startup. The tiers share the key's limiter: a key whose tier changes gets the
     * new tier's rate under the usual rules for a changed limit.
     */
    String tier() default "";

    /** Message of the exception, and {@code detail} of the HTTP 429 problem response. */
    String message() default "Too many requests";

    /**
     * What the call does when Redis gives no decision in time: {@link BackendErrorPolicy#ALLOW} runs it,
     * {@link BackendErrorPolicy#DENY} refuses it (HTTP 503), {@link BackendErrorPolicy#LOCAL} limits it in memory
     * to this instance's share of the rate; {@link BackendErrorPolicy#DEFAULT} follows
     * {@code ratelimit.on-backend-error} ({@code local} unless set).
     */
    BackendErrorPolicy onBackendError() default BackendErrorPolicy.DEFAULT;

    /**
     * How long a call may wait for its permits, as a duration string like {@link #window()}
     * ({@code 500ms}, {@code 2s}, {@code PT1S}). Empty or zero: a call that finds no permit is rejected
     * at once. A call whose permits cannot come back within the timeout is rejected at once too, instead
     * of waiting in vain. Blocking methods wait on the calling thread; reactive and
     * {@code CompletableFuture} methods wait on a timer, without blocking a thread.
     */
    String waitTimeout() default "";

    /**
     * A lease period, as a duration string like {@link #window()} ({@code 200ms}): each instance takes this limit's
     * permits from Redis in batches and spends them in memory for at most this long, so that most decisions of a hot
     * limit make no call to Redis, with the limit still exact at the time each permit is spent. A sliding window
     * only, at most a tenth of its interval; the price is under-admission (a spent permit counts up to one lease
     * longer). Empty: off, every decision goes to Redis. Overridden by {@code ratelimit.policies.<name>.lease}.
     */
    String lease() default "";

    /**
     * Name of a method of the same bean to call instead of throwing when this limit rejects a call. It
     * takes the same parameters as the limited method, optionally followed by one parameter that accepts
     * the {@link io.github.redissonratelimit.RateLimitExceededException}, and returns a type the limited
     * method may return. Checked when the application starts.
     */
    String fallback() default "";

    /**
     * SpEL condition, over the same variables as {@link #key()}, evaluated once per call before the
     * limit: the limit applies only when it is {@code true}. Empty: the limit always applies.
     */
    String condition() default "";

    /**
     * SpEL condition, over the same variables as {@link #key()}, evaluated once per call before the
     * limit: when it is {@code true} the call is not limited, e.g. {@code "@roles.isAdmin()"}.
     */
    String skipIf() default "";

    /**
     * Charges the call only when this SpEL condition holds once the method has run, e.g. {@code "#exception != null"}
     * to count only failed logins. It sees the variables of {@link #key()}, and {@code #result} (what the method
     * returned; for a {@code CompletableFuture} or {@code Mono}, its value) and {@code #exception} (what it threw or
     * failed with), each {@code null} when there is none. A call whose limit is spent is still refused at once;
     * otherwise it runs, and its permits are given back afterwards unless the condition is {@code true}. A
     * {@code Flux} is settled when it completes or fails ({@code #result} is then null); a call cancelled before
     * it ends stays charged, as does one whose condition fails (logged once per limit). Empty: every call that
     * passes is charged.
     */
    String chargeWhen() default "";
}
