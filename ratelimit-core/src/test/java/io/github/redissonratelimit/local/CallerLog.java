package io.github.redissonratelimit.local;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The callers' own count of one key's grants: each grant was made at some time between its call's start and its end
 * on this JVM's monotonic clock (by Redis during the call, or in memory), so grants whose calls all started and ended
 * within less than the interval were certainly granted within one window, however long each call took (a call may
 * wait for a stalled Redis, or for this JVM when the machine is busy).
 */
final class CallerLog {

    /**
     * The resolution of the limiter's clock: grants are stamped in whole milliseconds of Redis's clock and leave the
     * window one interval after their stamp, so two grants an interval apart by their stamps may be up to a
     * millisecond less apart in time. Only calls within the interval less this are certainly within one window.
     */
    private static final long STAMP_RESOLUTION_NANOS = 1_000_000;

    /** One granted call of {@code key}: when it started and ended (nanoTime), which instance answered it and how. */
    record Grant(String key, long start, long end, int instance, String result) {
    }

    private CallerLog() {
    }

    /**
     * The most grants certainly made within one window of {@code intervalNanos}, and who made them (ms after
     * {@code origin}, instance:how).
     */
    static Most most(List<Grant> grants, long intervalNanos, long origin) {
        List<Grant> byStart = new ArrayList<>(grants);
        byStart.sort(Comparator.comparingLong(Grant::start));
        Most most = new Most(0, "");
        long window = intervalNanos - STAMP_RESOLUTION_NANOS;
        for (int first = 0; first < byStart.size(); first++) {
            long from = byStart.get(first).start();
            List<Grant> within = new ArrayList<>();
            for (int i = first; i < byStart.size() && byStart.get(i).start() - from < window; i++) {
                if (byStart.get(i).end() - from < window) {
                    within.add(byStart.get(i));
                }
            }
            if (within.size() > most.count()) {
                most = new Most(within.size(), describe(within, origin));
            }
        }
        return most;
    }

    private static String describe(List<Grant> grants, long origin) {
        StringBuilder text = new StringBuilder("calls within one interval (ms):");
        for (Grant grant : grants) {
            text.append(' ').append((grant.start() - origin) / 1_000_000).append('-').append((grant.end() - origin) / 1_000_000)
                    .append(' ').append(grant.instance() + 1).append(':').append(grant.result());
        }
        return text.toString();
    }

    record Most(int count, String worst) {
    }
}
