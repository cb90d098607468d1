package io.github.redissonratelimit.algorithm;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Map;

import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;

/**
 * How a limiter counts its permits: one implementation per algorithm, each owning what sets it apart from the others
 * (its settings and their validation, the most permits a call can take, what {@code RateLimit-Policy} says of it,
 * its share under the {@code local} outage policy, and the script that decides it in Redis with its argument), so
 * that the decision stack, the actuator, routes and the gateway use a limit without knowing its algorithm. The
 * implementations are registered in {@link Algorithms}, which also resolves a limit's algorithm from its settings.
 *
 * <p>Implementations are values: equal when they count alike.
 */
public interface LimitAlgorithm {

    /** The sliding window, in RRateLimiter's layout: the default. */
    LimitAlgorithm SLIDING_WINDOW = new SlidingWindow();

    /** A token bucket of {@code burst} permits. */
    static LimitAlgorithm tokenBucket(long burst) {
        return new TokenBucket(burst);
    }

    /** Fixed windows of the limit's interval, aligned to the epoch. */
    static LimitAlgorithm fixedWindow() {
        return new FixedWindow(CalendarPeriod.NONE, CalendarPeriod.DEFAULT_ZONE);
    }

    /** Fixed windows that follow {@code calendar} in {@code zone}. */
    static LimitAlgorithm fixedWindow(CalendarPeriod calendar, ZoneId zone) {
        return new FixedWindow(calendar, zone);
    }

    /** Counts calls in flight across instances, each holding its permits by a lease of {@code lease} until it ends. */
    LimitAlgorithm IN_FLIGHT = new InFlight();

    /** Which algorithm this is, as annotations and properties name it. */
    RateLimitAlgorithm type();

    /** The most permits one call can take of a limit of {@code rate}: the rate, unless the algorithm has its own. */
    default long capacity(long rate) {
        return rate;
    }

    /** What {@link #capacity} is called in messages: {@code rate}, or the setting that sets it. */
    default String capacityName() {
        return "rate";
    }

    /** The interval this algorithm gives its limits (a calendar period's longest), or null: the limit's own. */
    default Duration interval() {
        return null;
    }

    /**
     * Whether limits of this algorithm and {@code other} can share one limiter (the tiers of one limit share its
     * key's): equal, apart from what a tier may change (a token bucket's burst).
     */
    default boolean sharesLimiterWith(LimitAlgorithm other) {
        return equals(other);
    }

    /** The settings beside rate and interval, by their property names, as the actuator shows them. */
    default Map<String, Object> settings() {
        return Map.of();
    }

    /**
     * The time in which {@link #capacity} permits come back, for {@code RateLimit-Policy}'s {@code w}; null when it
     * has no fixed length (a calendar period).
     */
    Duration replenishment(long rate, Duration interval);

    /**
     * The permits per interval an instance may grant on its own under the {@code local} outage policy (before its
     * share among instances), such that a sliding window of that many per interval never exceeds this algorithm's
     * law: the rate, unless the algorithm allows fewer in a short span.
     */
    default long outageQuota(long rate) {
        return rate;
    }

    /**
     * Its Lua file, which registers it among the algorithms the scripts know ({@code keyed.lua}: its decision, refund,
     * state read and write-back), or null for the sliding window, which the scripts are built on.
     */
    default String file() {
        return null;
    }

    /**
     * The script that decides a limiter of this algorithm alone in its common case (answering -4 otherwise), or null
     * when the full decision script always decides it; a differential test holds the two equal.
     */
    default String script() {
        return null;
    }

    /**
     * The argument of one decision of {@link #script()} and of the full decision script, built when it is sent.
     *
     * @param permits the permits the call takes
     * @param rate the limit's rate
     * @param interval the limit's interval
     * @param type RRateLimiter's type code: 0 overall, 1 per client
     * @param check what the script does with a stored config that differs: {@code - u r k}
     */
    String argument(long permits, long rate, Duration interval, int type, char check, DecisionArguments arguments);

    /** The declaration a write-back of local grants sends after the type, see {@code write-back.lua}; "" for none. */
    String writeBackDeclaration(long rate, Duration interval);

    /**
     * What a state read sends after clock, rate, interval and type: the permits free when nothing is stored, or none
     * (see {@code state.lua}).
     */
    default Long stateWhenEmpty(long rate) {
        return capacity(rate);
    }

    /** How the scripts name this algorithm's stored config, as a config change reports the one stored before. */
    String storedName();

    /**
     * Whether a grant is held by its call until the call ends rather than counted for a time: the caller gives it back
     * when the call ends (every exit path), the backend renews it while the call runs, and a refusal tells no time at
     * which permits come back ({@link io.github.redissonratelimit.limiter.Decision#retryAfter()} zero).
     */
    default boolean held() {
        return false;
    }

    /**
     * Whether an instance may take this algorithm's permits in batches and spend them in memory (a lease, see
     * {@code io.github.redissonratelimit.lease}) with its law kept at the time each permit is spent: its decision
     * script grants a lease counted until the last moment it can be spent, and its refund gives back what a lease did
     * not spend. Not an algorithm whose grants are {@link #held()} until their calls end.
     */
    default boolean leases() {
        return false;
    }

    /**
     * How long a lease may be spent, from its call's send: the lease {@code period}, unless the algorithm ends it
     * sooner (a fixed window's lease ends with its window, which {@code nextPermitIn}, the lease's grant's, tells).
     */
    default Duration leaseSpend(Duration period, Duration nextPermitIn) {
        return period;
    }

    /**
     * A lease's grant, read from the receipt its decision answered ({@code r} and the reply's numbers after the
     * decision, ':' apart): the receipt a refund of its unspent permits names and the permits granted; null for a
     * plain grant. An algorithm kept in one key answers its grant's receipt, then the permits granted.
     */
    default LeaseGrant leaseGrant(String receipt) {
        int split = receipt == null ? -1 : receipt.indexOf(':');
        int last = receipt == null ? -1 : receipt.lastIndexOf(':');
        if (split > 0 && last > split && receipt.indexOf(':', split + 1) == last) {
            return new LeaseGrant(receipt.substring(0, last), Long.parseLong(receipt.substring(last + 1)));
        }
        return null;
    }

    /** How long a limiter's keys outlive its last grant, when the algorithm keeps them (the sliding window). */
    default boolean keepsAlive() {
        return false;
    }
}
