package io.github.redissonratelimit.local;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;

import io.github.redissonratelimit.local.TwoInstances.Answer;

/**
 * What a run granted on one key, against its limit: the most grants in any window, and how many fewer requests
 * were granted than a single exact limiter (a sliding window of the same rate over the same requests) would
 * have granted, for good: {@code refusedShort} is the least the count of grants was behind the exact limiter's in the
 * run's last interval. A grant made a little later than the exact limiter would have made it puts the count one
 * behind until then, and again one interval later, for as long (its permits return later too), so the count at
 * the run's end alone would take a grant that was late as refused, depending on where the run stops.
 */
record OutageAccounting(String key, long rate, int requests, int granted, int idealGranted, int refusedShort,
        int maxInWindow, String worstWindow) {

    /**
     * @param window the interval less the time a call may take: a grant's time here is its call's midpoint on
     * this JVM, within a call's duration of when Redis (or the instance) made it
     */
    static OutageAccounting of(String key, long rate, List<Answer> answers, Duration interval, Duration window) {
        int maxInWindow = 0;
        String worstWindow = "";
        ArrayDeque<Answer> recent = new ArrayDeque<>();
        for (Answer answer : answers) {
            if (answer.granted()) {
                recent.addLast(answer);
                while (answer.nanos() - recent.peekFirst().nanos() >= window.toNanos()) {
                    recent.removeFirst();
                }
                if (recent.size() > maxInWindow) {
                    maxInWindow = recent.size();
                    worstWindow = describe(recent, answers.get(0).nanos());
                }
            }
        }
        int ideal = 0;
        int granted = 0;
        int refusedShort = Integer.MAX_VALUE;
        long lastInterval = answers.get(answers.size() - 1).nanos() - interval.toNanos();
        ArrayDeque<Long> idealGrants = new ArrayDeque<>();
        for (Answer answer : answers) {
            while (!idealGrants.isEmpty() && answer.nanos() - idealGrants.peekFirst() >= interval.toNanos()) {
                idealGrants.removeFirst();
            }
            if (idealGrants.size() < rate) {
                idealGrants.addLast(answer.nanos());
                ideal++;
            }
            granted += answer.granted() ? 1 : 0;
            if (answer.nanos() - lastInterval >= 0) {
                refusedShort = Math.min(refusedShort, Math.max(0, ideal - granted));
            }
        }
        return new OutageAccounting(key, rate, answers.size(), granted, ideal, refusedShort, maxInWindow, worstWindow);
    }

    /** Who granted a window's grants, in order: instance and how (e.g. "1:allowed", "2:local_allowed"), ms apart. */
    private static String describe(ArrayDeque<Answer> grants, long origin) {
        long first = grants.peekFirst().nanos();
        StringBuilder text = new StringBuilder("from " + (first - origin) / 1_000_000 + " ms: ");
        for (Answer grant : grants) {
            text.append(grant == grants.peekFirst() ? "" : ", ").append("+").append((grant.nanos() - first) / 1_000_000).append("ms ")
                    .append(grant.instance() + 1).append(':').append(grant.result());
        }
        return text.toString();
    }

    /** The share of what an exact limiter would have granted that was refused for good. */
    double wronglyRefused() {
        return idealGranted == 0 ? 0 : refusedShort / (double) idealGranted;
    }

    double maxOverRate() {
        return maxInWindow / (double) rate;
    }

    @Override
    public String toString() {
        return String.format("%s: %d requests, %d granted (exact limiter: %d; refused short of it for good %d, %.2f%%), "
                + "most in a window %d of %d (%.2fx) [%s]", key, requests, granted, idealGranted, refusedShort,
                100 * wronglyRefused(), maxInWindow, rate, maxOverRate(), worstWindow);
    }
}
