package io.github.redissonratelimit.local;

/**
 * What this instance knows of the outage it decides in memory for: when Redis stopped answering it (the earliest
 * call it gave no decision was sent) and the latest call sent to Redis that got none. A limiter Redis answered
 * before that latest call was reachable during the outage (another master of a cluster): the others most likely
 * reached it too, so it keeps to the share only when grants made in memory are reported on it or made on it here.
 * A call refused by an open circuit was not sent: it tells nothing of when Redis answered.
 */
final class OutageSpan {

    private long since;
    private long lastFailedSend;
    /** Read on every answer of Redis, without the lock: a grant does not wait for an outage's bookkeeping. */
    private volatile boolean failing;
    private boolean sentAny;

    /**
     * A call asked at {@code askedAt} got no decision ({@code sent}: it went to Redis). Starts an outage when none is
     * under way.
     * @return when this outage started
     */
    synchronized long failed(long askedAt, boolean sent) {
        // nanoTime values are compared by their difference only
        if (!failing) {
            failing = true;
            since = askedAt;
            sentAny = false;
        }
        else if (askedAt - since < 0) {
            since = askedAt;
        }
        if (sent && (!sentAny || askedAt - lastFailedSend > 0)) {
            lastFailedSend = askedAt;
            sentAny = true;
        }
        return since;
    }

    /** Redis answers again and no decision in memory was needed for a while: the next failure starts a new outage. */
    synchronized void ended() {
        failing = false;
    }

    /** Whether an outage is under way (Redis gave no decision to a call since the last one ended). */
    boolean failing() {
        return failing;
    }

    /** When the last outage started; meaningful once one did. */
    synchronized long since() {
        return since;
    }

    /** Whether Redis gave no decision to a call sent after {@code answeredAt}, in the outage started at {@code start}. */
    synchronized boolean failedAfter(long answeredAt, long start) {
        return sentAny && since == start && lastFailedSend - answeredAt > 0;
    }
}
