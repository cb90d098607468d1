package io.github.redissonratelimit.redis;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.algorithm.DecisionArguments;
import io.github.redissonratelimit.algorithm.LeaseGrant;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.naming.LimiterNaming;

/**
 * The calls of {@code acquire.lua} (see {@link LuaScripts}) for one Redisson instance: their keys, their
 * arguments and what their replies mean.
 *
 * <p>The script works on the keys and data RRateLimiter keeps and follows the same rules, so the two can be
 * mixed on one limiter (RRateLimiter's {@code availablePermits}, {@code getConfig}, {@code setRate} and
 * {@code updateRate} see the same state; its {@code tryAcquire} too, stamping with its caller's clock). It
 * writes and checks the config itself, stamps grants with Redis's clock (or the caller's, for
 * {@link LimiterClock#CLIENT}), repairs lost state without admitting extra grants, and answers with the
 * permits left, so a decision is one call whether or not the limiter existed.
 */
final class AcquireScript {

    private static final long COUNTER_WRAP = 2_821_109_907_456L; // 36^8

    private final String clientId;
    private final BackendOptions options;
    private final InstantSource clientClock;
    /**
     * How far Redis's clock was ahead of {@link #clientClock} when a calendar quota's bounds were last found stale
     * (0 until then): a quota's bounds are computed on this JVM's clock moved by it, so Redis's clock always finds
     * its window among them after one such answer, however far off this JVM's clock is.
     */
    private volatile long calendarOffsetMillis;
    private final String grantIdPrefix;
    /** What this backend's in-flight leases name as their holder. */
    private final String holder = LeaseHolders.next();
    private final AtomicLong grantCounter = new AtomicLong();
    private final DecisionArguments arguments = new CallArguments("-", "");

    /**
     * @param clientId the Redisson instance's id, which names its PER_CLIENT keys
     * @param clientClock this JVM's clock: stamps grants with {@link LimiterClock#CLIENT}; places a calendar quota's
     *        window bounds (see {@link #anchorCalendar})
     */
    AcquireScript(String clientId, BackendOptions options, InstantSource clientClock) {
        this.clientId = clientId;
        this.options = options;
        this.clientClock = clientClock;
        byte[] random = new byte[6];
        new SecureRandom().nextBytes(random);
        this.grantIdPrefix = Base64.getUrlEncoder().encodeToString(random);
    }

    /**
     * Redis answered that a calendar quota's bounds held none of its own time, {@code redisMillis}: later bounds are
     * computed on this JVM's clock moved to it.
     */
    void anchorCalendar(long redisMillis) {
        calendarOffsetMillis = redisMillis - clientClock.millis();
    }

    /** Config hash, free permits (shared, then this client's), grants (shared, then this client's). */
    List<Object> keys(String limiterName) {
        String value = LimiterNaming.valueKey(limiterName);
        String permits = LimiterNaming.permitsKey(limiterName);
        return List.of(limiterName, value, LimiterNaming.clientKey(value, clientId), permits,
                LimiterNaming.clientKey(permits, clientId));
    }

    /**
     * The argument of one decision (see {@code decide.lua} and {@code algorithms.lua}), built when it is sent by the
     * limit's algorithm. One argument, not eight: Redis spends less time per call on one it matches with a pattern
     * than on eight separate ones.
     */
    String argument(AcquireCall call) {
        LimitSpec spec = call.spec();
        AcquireRequest.Waiter waiter = call.waiter();
        AcquireRequest.Lease lease = call.lease();
        return spec.algorithm().argument(call.permits(), spec.rate(), spec.interval(), typeCode(spec.mode()),
                call.check().code, waiter == null && lease == null ? arguments
                        : new CallArguments(waiter == null ? "-" : waiter.id() + ":" + Math.max(1,
                                waiter.left().toMillis()), lease == null ? "" : " " + lease.period().toMillis() + " "
                                        + lease.permits()));
    }

    /** What a decision's argument takes from this backend, for a call that waits in line or not ({@code "-"}). */
    private final class CallArguments implements DecisionArguments {

        private final String waiter;
        private final String lease;

        CallArguments(String waiter, String lease) {
            this.waiter = waiter;
            this.lease = lease;
        }

        @Override
        public String lease() {
            return lease;
        }

        @Override
        public String clock() {
            return AcquireScript.this.clock();
        }

        @Override
        public String grantId() {
            return nextGrantId();
        }

        @Override
        public String holder() {
            return holder;
        }

        @Override
        public String waiter() {
            return waiter;
        }

        @Override
        public Duration keepAlive(Duration interval) {
            return options.keepAlive(interval);
        }

        @Override
        public Instant redisTime() {
            return clientClock.instant().plusMillis(calendarOffsetMillis);
        }
    }

    /**
     * The arguments of a refund of {@code permits} of a limiter declared as {@code spec}, or with {@code renew} of
     * the renewal of a held grant's lease.
     */
    Object[] refundArguments(long permits, LimitSpec spec, String receipt, boolean renew) {
        String type = Integer.toString(typeCode(spec.mode()));
        String named = receipt == null ? "" : receipt;
        return renew ? new Object[] {Long.toString(permits), clock(), type, named, holder, "renew"}
                : new Object[] {Long.toString(permits), clock(), type, named, holder};
    }

    /** The arguments of a state read of a limiter declared as {@code spec}. */
    Object[] stateArguments(LimitSpec spec) {
        String rate = Long.toString(spec.rate());
        String interval = Long.toString(spec.interval().toMillis());
        String type = Integer.toString(typeCode(spec.mode()));
        Long empty = spec.algorithm().stateWhenEmpty(spec.rate());
        return empty == null ? new Object[] {clock(), rate, interval, type}
                : new Object[] {clock(), rate, interval, type, Long.toString(empty)};
    }

    /** A state read's reply: {free, next ms}, then an in-flight limit's holders and their permits (see state.lua). */
    static LimitState state(List<Object> reply) {
        Map<String, Long> holders = new HashMap<>();
        for (int i = 2; i + 1 < reply.size(); i += 2) {
            holders.put(String.valueOf(reply.get(i)), ((Number) reply.get(i + 1)).longValue());
        }
        return new LimitState(((Number) reply.get(0)).longValue(), Duration.ofMillis(((Number) reply.get(1)).longValue()),
                holders);
    }

    /** The declared algorithm as write-back.lua reads it: the type, then the algorithm's own config. */
    static String writeBackDeclaration(LimitSpec spec) {
        return typeCode(spec.mode()) + spec.algorithm().writeBackDeclaration(spec.rate(), spec.interval());
    }

    private String clock() {
        return options.clock() == LimiterClock.CLIENT ? Long.toString(clientClock.millis()) : "0";
    }

    /** RRateLimiter's type codes in its config hash: its {@code RateType} ordinals. */
    static int typeCode(RateLimitMode mode) {
        return mode == RateLimitMode.PER_CLIENT ? 1 : 0;
    }

    /**
     * The grant's id, 16 characters like RRateLimiter's 16 random bytes (so a grant costs the same memory):
     * 8 random characters per instance of this class (48 bits) and a counter (8 base-36 digits, which take
     * over 30 days at a million grants a second to wrap). Two live grants with the same id would be one
     * ZSET member, and one of them would be lost.
     */
    String nextGrantId() {
        String count = Long.toString(grantCounter.incrementAndGet() % COUNTER_WRAP, 36);
        return grantIdPrefix + "00000000".substring(count.length()) + count;
    }

    /** What the script does with a stored config that differs from the declared one. */
    enum ConfigCheck {

        /** Use the stored config as it is (write the declared one only when none is stored). */
        NONE('-'),

        /** {@link ConfigChangePolicy#UPDATE}: write the declared config, keep the window's grants. */
        UPDATE('u'),

        /** {@link ConfigChangePolicy#RESET}: write the declared config, start a fresh window. */
        RESET('r'),

        /** {@link ConfigChangePolicy#KEEP}: use the stored config and report the difference. */
        KEEP('k');

        private final char code;

        ConfigCheck(char code) {
            this.code = code;
        }

        static ConfigCheck of(ConfigChangePolicy policy) {
            return switch (policy) {
                case UPDATE -> UPDATE;
                case RESET -> RESET;
                case KEEP -> KEEP;
            };
        }
    }

    /**
     * One reply of the script.
     *
     * @param waitMillis 0 when granted, else the ms until the permits can be free
     * @param free the permits left
     * @param nextMillis the ms until the oldest grant leaves the window
     * @param storedBefore when the check found another config: the one stored before, else null
     * @param change what was done about it (1 updated, 2 reset, 3 kept), else 0
     * @param receipt what a refund of the grant names ({@code r<number>[:<number>...]}, see refund.lua), else null
     */
    record Reply(long waitMillis, long free, long nextMillis, StoredConfig storedBefore, int change, String receipt) {

        static Reply parse(List<?> reply) {
            StoredConfig before = null;
            int change = 0;
            int size = reply.size();
            if (size >= 8) {
                String algorithm = size >= 9 ? String.valueOf(reply.get(8)) : "sliding";
                before = new StoredConfig(number(reply, 3), number(reply, 4), (int) number(reply, 5), number(reply, 6),
                        algorithm);
                change = (int) number(reply, 7);
            }
            // a grant's reply ends with the numbers a refund of it names (see refund.lua), after the decision's three
            // and, when a config check found another config, its six
            String receipt = null;
            int decided = size >= 8 ? 9 : 3;
            if (size > decided && number(reply, 0) == 0) {
                StringBuilder numbers = new StringBuilder("r");
                for (int i = decided; i < size; i++) {
                    numbers.append(i == decided ? "" : ":").append(number(reply, i));
                }
                receipt = numbers.toString();
            }
            return new Reply(number(reply, 0), number(reply, 1), number(reply, 2), before, change, receipt);
        }

        private static long number(List<?> reply, int index) {
            return ((Number) reply.get(index)).longValue();
        }

        Decision decision() {
            return decision(false, 0, null);
        }

        /**
         * The decision; for a call that asked a lease, a lease's grant is {@link Decision#leased()} beyond the call's
         * {@code permits}, as its {@code algorithm} reads it from the receipt.
         */
        Decision decision(boolean leaseAsked, long permits, LimitAlgorithm algorithm) {
            LimitState state = new LimitState(free, Duration.ofMillis(nextMillis));
            if (waitMillis != 0) {
                return Decision.reject(Duration.ofMillis(waitMillis), state);
            }
            LeaseGrant lease = leaseAsked ? algorithm.leaseGrant(receipt) : null;
            if (lease != null) {
                return new Decision(true, Duration.ZERO, state, false, lease.receipt(), lease.permits() - permits);
            }
            return Decision.allow(state, receipt);
        }
    }
}
