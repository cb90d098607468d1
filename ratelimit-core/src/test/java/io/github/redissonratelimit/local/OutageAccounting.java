package io.github.redissonratelimit.local;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;

import io.github.redissonratelimit.local.TwoInstances.Answer;

/**
 * What a run granted on one key, against its limit: the most grants in any window, and how many fewer requests
 * were granted than a single exact limiter (a sliding window of the same rate over the same requests) would
 * have granted.
 */
record OutageAccounting(String key, long rate, int requests, int granted, int idealGranted, int maxInWindow) {

    /**
     * @param window the interval less the time a call may take: a grant's time here is its call's midpoint on
     * this JVM, within a call's duration of when Redis (or the instance) made it
     */
    static OutageAccounting of(String key, long rate, List<Answer> answers, Duration interval, Duration window) {
        int granted = 0;
        int maxInWindow = 0;
        ArrayDeque<Long> recent = new ArrayDeque<>();
        for (Answer answer : answers) {
            if (answer.granted()) {
                granted++;
                recent.addLast(answer.nanos());
                while (answer.nanos() - recent.peekFirst() >= window.toNanos()) {
                    recent.removeFirst();
                }
                maxInWindow = Math.max(maxInWindow, recent.size());
            }
        }
        int ideal = 0;
        ArrayDeque<Long> idealGrants = new ArrayDeque<>();
        for (Answer answer : answers) {
            while (!idealGrants.isEmpty() && answer.nanos() - idealGrants.peekFirst() >= interval.toNanos()) {
                idealGrants.removeFirst();
            }
            if (idealGrants.size() < rate) {
                idealGrants.addLast(answer.nanos());
                ideal++;
            }
        }
        return new OutageAccounting(key, rate, answers.size(), granted, ideal, maxInWindow);
    }

    /** The share of what an exact limiter would have granted that was refused (0 when at least as much was granted). */
    double wronglyRefused() {
        return idealGranted == 0 ? 0 : Math.max(0, idealGranted - granted) / (double) idealGranted;
    }

    double maxOverRate() {
        return maxInWindow / (double) rate;
    }

    @Override
    public String toString() {
        return String.format("%s: %d requests, %d granted (exact limiter: %d, refused short of it %.2f%%), "
                + "most in a window %d of %d (%.2fx)", key, requests, granted, idealGranted, 100 * wronglyRefused(),
                maxInWindow, rate, maxOverRate());
    }
}
