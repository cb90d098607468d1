package io.github.redissonratelimit.algorithm;

import java.time.Duration;
import java.time.Instant;

/** What the argument of one decision takes from the backend that sends it, besides the limit. */
public interface DecisionArguments {

    /** The clock that stamps the decision: {@code 0} for Redis's, else this JVM's time in ms. */
    String clock();

    /** A new grant id, unique among the live grants of every instance. */
    String grantId();

    /** The instance that sends the decision, as the leases it takes name their holder (one word, no spaces). */
    String holder();

    /**
     * For a call waiting in line for permits held until calls end, {@code <n>:<ms>}: the n-th waiter of this
     * instance, kept in line for ms if refused; {@code -} for every other call.
     */
    default String waiter() {
        return "-";
    }

    /**
     * For a call that may take a lease ({@code io.github.redissonratelimit.lease}), {@code " <period ms> <most
     * permits>"}; {@code ""} for every other call.
     */
    default String lease() {
        return "";
    }

    /**
     * {@link #lease()} as the algorithms kept in one key send it, before the grant id: {@code "L<period ms>:<most
     * permits> "}, or {@code ""}.
     */
    static String leaseMark(String lease) {
        return lease.isEmpty() ? "" : "L" + lease.substring(1).replace(' ', ':') + " ";
    }

    /** How long a sliding window's keys are kept after its last grant. */
    Duration keepAlive(Duration interval);

    /**
     * Redis's time as this JVM knows it: its own clock moved by how far Redis's was found to be off, so that windows
     * placed on it hold Redis's time (see {@code RedisClockAnswer}).
     */
    Instant redisTime();
}
