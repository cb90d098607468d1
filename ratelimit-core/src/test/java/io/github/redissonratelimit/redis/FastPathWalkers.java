package io.github.redissonratelimit.redis;

import java.util.List;
import java.util.Random;

/**
 * The calls, the time and the changes from outside of {@link FastPathEquivalenceTest}'s walks, one walker per
 * algorithm, each drawing from its seeded {@link Random}. Arguments as {@code AcquireScript.argument} builds them
 * (see {@code algorithms.lua}), with the caller's clock.
 */
final class FastPathWalkers {

    private FastPathWalkers() {
    }

    /** What one walk draws, beside the acquire arguments of its algorithm. */
    abstract static class Walker {

        final Random random;
        final String type;
        private String permits = "1";
        private String declaredType;
        private long next;

        Walker(Random random, long seed) {
            this.random = random;
            this.type = seed % 2 == 0 ? "0" : "1"; // OVERALL and PER_CLIENT
        }

        /** The fast-path script's file. */
        abstract String fastPath();

        /** An acquire's argument at {@code now}; its permits and declared type are kept for a refund. */
        abstract String argument(long now, int step);

        /** The algorithm's period: the interval, a window, two permits' time. */
        abstract long period();

        /** The longest move of the clock: one and a half periods, unless the algorithm remembers longer. */
        long span() {
            return period() * 3 / 2;
        }

        /** A change made from outside, particular to this algorithm, or null to make a common one. */
        String ownOutside(long now, FastPathPair pair) {
            return null;
        }

        /**
         * How far the clock moves: in eighths of the period half of the time (so that grants often sit exactly on an
         * edge), else up to the span or an eighth, or to the edge the last reply named (the next permit, the window's
         * end) and a ms either side.
         */
        long advance() {
            if (random.nextInt(5) == 0) {
                return Math.max(0, next + random.nextInt(3) - 1);
            }
            long period = period();
            return random.nextBoolean() ? period / 8 * (1 + random.nextInt(12))
                    : random.nextInt(3) == 0 ? random.nextLong(span()) : random.nextLong(period / 8 + 1);
        }

        /** The last reply of an acquire: its third element is the ms until the next permit or the window's end. */
        void replied(List<?> reply) {
            if (reply.size() >= 3) {
                next = ((Number) reply.get(2)).longValue();
            }
        }

        /** The permits of the last acquire drawn. */
        String grantPermits() {
            return permits;
        }

        /** Draws the permits (now and then more than {@code limit}) and the declared type of the next acquire. */
        String drawPermits(long limit) {
            permits = Long.toString(random.nextInt(20) == 0 ? limit + 1 : 1 + random.nextInt((int) Math.min(limit, 4)));
            declaredType = random.nextInt(25) == 0 ? (type.equals("0") ? "1" : "0") : type;
            return permits;
        }

        String declaredType() {
            return declaredType;
        }

        /** The check of the stored config: mostly none, else each policy's. */
        String check() {
            return switch (random.nextInt(20)) {
                case 0, 1 -> "u";
                case 2 -> "r";
                case 3 -> "k";
                default -> "-";
            };
        }

        /** A change made from outside, the same on both limiters; what it was. */
        String outside(long now, FastPathPair pair) {
            String own = random.nextInt(3) == 0 ? ownOutside(now, pair) : null;
            if (own != null) {
                return own;
            }
            int valueKey = type.equals("1") ? 2 : 1;
            String check = random.nextBoolean() ? "r" : "u";
            switch (random.nextInt(7)) {
                case 0 -> {
                    pair.onBoth(keys -> new String[] {"DEL", keys[1], keys[2]});
                    return "free permits' keys lost";
                }
                case 1 -> {
                    pair.onBoth(keys -> new String[] {"DEL", keys[0], keys[1], keys[2], keys[3], keys[4]});
                    return "all lost";
                }
                case 2 -> {
                    String argument = "1 " + now + " o1 5 1000 " + type + " 3600000 " + check;
                    pair.fullOnBoth(argument);
                    return "a sliding window took over: " + argument;
                }
                case 3 -> {
                    String argument = "g 1 " + now + " " + type + " " + check + " 4:60000:6 o2";
                    pair.fullOnBoth(argument);
                    return "a token bucket took over: " + argument;
                }
                case 4 -> {
                    String argument = "f 1 " + now + " 4 60000 " + type + " " + check + " 0 o3";
                    pair.fullOnBoth(argument);
                    return "a fixed window took over: " + argument;
                }
                case 5 -> {
                    // a short value, a bucket without a config, a window of another length, a counter, and values
                    // of the right form whose binary part is text
                    String value = List.of("g", "g12345678", "f3:short", "17", "gABCDEFGHABCDEFGHABCDEFGH1:1000:1",
                            "f2:ABCDEFGHABCDEFGHABCDEFGH").get(random.nextInt(6));
                    pair.onBoth(keys -> new String[] {"SET", keys[valueKey], value, "PX", "600000"});
                    return "a value of another form: " + value;
                }
                default -> {
                    pair.onBoth(keys -> new String[] {"HSET", keys[0], "rate", "5", "interval", "1000", "type", type,
                        "keepAliveTime", "0"});
                    return "RRateLimiter's trySetRate";
                }
            }
        }
    }

    /** A sliding window of 3 to 22 per 1 s or 10.24 s (slices of 10 ms that grants share). */
    static final class Sliding extends Walker {

        private final long rate;
        private final long interval;
        private final long keepAlive;

        Sliding(Random random, long seed) {
            super(random, seed);
            this.interval = random.nextBoolean() ? 1_000 : 10_240;
            this.rate = 3 + random.nextInt(20);
            // a key TTL of the starter's own, and none (the keys follow the config hash's TTL)
            this.keepAlive = seed <= 2 ? 3_600_000 : 0;
        }

        @Override
        String fastPath() {
            return "acquire-sliding";
        }

        @Override
        String argument(long now, int step) {
            long declared = random.nextInt(20) == 0 ? Math.max(1, rate / 2 + random.nextInt((int) rate * 2)) : rate;
            String permits = drawPermits(declared);
            return permits + " " + now + " g" + step + " " + declared + " " + interval + " " + declaredType() + " "
                    + keepAlive + " " + check();
        }

        @Override
        long period() {
            return interval;
        }

        @Override
        String ownOutside(long now, FastPathPair pair) {
            long count = 1 + random.nextInt(3);
            String permits = Long.toString(count);
            switch (random.nextInt(6)) {
                case 0 -> {
                    // RRateLimiter's tryAcquire, with its caller's clock: a member of its own, and DECRBY
                    pair.onBoth(keys -> new String[] {"EVAL", "redis.call('zadd', KEYS[1], ARGV[1], "
                        + "struct.pack('Bc0I', 8, ARGV[2], ARGV[3])) redis.call('decrby', KEYS[2], ARGV[3])", "2",
                        keys[3], keys[1], Long.toString(now), String.format("r%07d", now % 10_000_000), permits});
                    return "RRateLimiter's tryAcquire";
                }
                case 1 -> {
                    pair.onBoth(keys -> new String[] {"INCRBY", keys[1], permits});
                    return "RRateLimiter's release";
                }
                case 2 -> {
                    pair.onBoth(keys -> new String[] {"DEL", keys[3]});
                    return "grants lost";
                }
                case 3 -> {
                    pair.onBoth(keys -> new String[] {"DEL", keys[0]});
                    return "config lost";
                }
                case 4 -> {
                    pair.onBoth(keys -> new String[] {"PEXPIRE", keys[0], "1800000"}); // outlives the walk
                    return "a TTL set on the config hash"; // RRateLimiter's keys follow it without a keep-alive
                }
                default -> {
                    pair.onBoth(keys -> new String[] {"HDEL", keys[0], keys[1]});
                    return "the counter's copy lost";
                }
            }
        }
    }

    /** A token bucket of 1 to 15 per 60 s (a permit every 4 to 60 s, some in whole ms, some not), burst 1 to 15. */
    static final class Bucket extends Walker {

        private static final long[] RATES = {1, 2, 3, 7, 9, 11, 13, 15}; // permits every whole and part ms

        private final long rate;
        private final long interval = 60_000;
        private final long burst;

        Bucket(Random random, long seed) {
            super(random, seed);
            this.rate = RATES[random.nextInt(RATES.length)];
            this.burst = 1 + random.nextInt(15);
        }

        @Override
        String fastPath() {
            return "acquire-bucket";
        }

        @Override
        String argument(long now, int step) {
            boolean changed = random.nextInt(15) == 0;
            long declaredRate = changed ? RATES[random.nextInt(RATES.length)] : rate;
            long declaredInterval = changed && random.nextBoolean() ? 30_000 : interval;
            long declaredBurst = changed ? 1 + random.nextInt(15) : burst;
            String permits = drawPermits(declaredBurst);
            return "g " + permits + " " + now + " " + declaredType() + " " + check() + " " + declaredRate + ":"
                    + declaredInterval + ":" + declaredBurst + " g" + step;
        }

        @Override
        long period() {
            return 2 * interval / rate;
        }

        @Override
        long span() {
            return burst * interval / rate * 3 / 2 + 1; // from empty to full, and on
        }
    }

    /**
     * A fixed window of 1 to 12 per 60 s: windows aligned to the epoch (even seeds), or a calendar quota (odd
     * seeds) of windows 50 to 70 s long whose bounds come from a caller's clock that is now and then off, by up to
     * one and a half windows; now and then the other kind, a change of config.
     */
    static final class Window extends Walker {

        private static final long FIRST_BOUND = 1_699_999_990_000L;

        private final long rate;
        private final long interval = 60_000;
        private final boolean calendar;

        Window(Random random, long seed) {
            super(random, seed);
            this.rate = 1 + random.nextInt(12);
            this.calendar = seed % 2 == 1;
        }

        @Override
        String fastPath() {
            return "acquire-window";
        }

        @Override
        String argument(long now, int step) {
            long declaredRate = random.nextInt(15) == 0 ? 1 + random.nextInt(12) : rate;
            String permits = drawPermits(declaredRate);
            boolean asCalendar = random.nextInt(30) == 0 != calendar;
            String bounds = asCalendar ? bounds(now + skew()) : "0";
            return "f " + permits + " " + now + " " + declaredRate + " " + interval + " " + declaredType() + " "
                    + check() + " " + bounds + " g" + step;
        }

        private long skew() {
            return random.nextInt(8) != 0 ? 0 : random.nextLong(-90_000, 90_000);
        }

        /** The calendar's bounds around {@code time}: previous start, start, end, next end. */
        private static String bounds(long time) {
            int window = 0;
            while (bound(window + 1) <= time) {
                window++;
            }
            return bound(window - 1) + "," + bound(window) + "," + bound(window + 1) + "," + bound(window + 2);
        }

        /** The start of calendar window {@code window}: windows of 50, 55, ... 70 s in turn (5 of them: 300 s). */
        private static long bound(int window) {
            if (window < 0) {
                return FIRST_BOUND - 60_000;
            }
            int rest = window % 5;
            return FIRST_BOUND + window / 5 * 300_000L + rest * 50_000L + rest * (rest - 1) / 2 * 5_000L;
        }

        @Override
        long period() {
            return interval;
        }
    }
}
