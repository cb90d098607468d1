package io.github.redissonratelimit.local;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * The grants this instance made in memory on one limiter that Redis does not know yet, oldest first, each with an
 * id: what {@link WriteBack} writes into the limiter's window. A grant that left the window is dropped (Redis needs
 * it no more). Grants less than {@value LocalWindow#GRANULES}th of the interval apart share one entry, stamped with
 * the later time (held at most that much longer, never shorter), until the entry is sent: an entry sent once keeps
 * its id and permits, so that writing it again counts nothing twice. At most about {@value LocalWindow#GRANULES}
 * entries per interval.
 */
final class UnwrittenGrants {

    private static final class Entry {
        final String id;
        long nanos;
        long permits;
        boolean sent;

        Entry(String id, long nanos, long permits) {
            this.id = id;
            this.nanos = nanos;
            this.permits = permits;
        }
    }

    final LimitSpec spec;
    private final long intervalNanos;
    private final long granuleNanos;
    private final LinkedList<Entry> entries = new LinkedList<>();
    /** The write of these grants under way, or null. */
    private CompletableFuture<Void> writing;
    /** Whether it was started when Redis answered a decision on this limiter: the next decisions wait for it. */
    private boolean awaited;

    UnwrittenGrants(LimitSpec spec) {
        this.spec = spec;
        this.intervalNanos = spec.interval().toNanos();
        this.granuleNanos = intervalNanos / LocalWindow.GRANULES;
    }

    synchronized void add(IdSource ids, long permits, long now) {
        Entry newest = entries.peekLast();
        if (newest != null && !newest.sent && now - newest.nanos < granuleNanos) {
            newest.nanos = now;
            newest.permits += permits;
            return;
        }
        entries.addLast(new Entry(ids.next(), now, permits));
    }

    /** Gives back {@code permits} of the newest grant not sent yet that holds as many (a call that did not pass). */
    synchronized void release(long permits) {
        Iterator<Entry> newestFirst = entries.descendingIterator();
        while (newestFirst.hasNext()) {
            Entry entry = newestFirst.next();
            if (!entry.sent && entry.permits >= permits) {
                entry.permits -= permits;
                if (entry.permits == 0) {
                    newestFirst.remove();
                }
                return;
            }
        }
    }

    /**
     * The grants still in the window as a write sends them (their ages at {@code now}), marked sent; null when a
     * write is under way already or there is nothing to write.
     */
    synchronized List<GrantWriter.Grant> startWrite(long now, CompletableFuture<Void> write, boolean awaited) {
        expire(now);
        if (writing != null || entries.isEmpty()) {
            return null;
        }
        List<GrantWriter.Grant> grants = new ArrayList<>(entries.size());
        for (Entry entry : entries) {
            entry.sent = true;
            grants.add(new GrantWriter.Grant(entry.id, entry.permits, Math.max(0, (now - entry.nanos) / 1_000_000)));
        }
        writing = write;
        this.awaited = awaited;
        return grants;
    }

    /** The write started last ended: written, the grants it sent are known to Redis. */
    synchronized void writeEnded(List<GrantWriter.Grant> grants, boolean written) {
        writing = null;
        if (written) {
            entries.removeIf(entry -> grants.stream().anyMatch(grant -> grant.id().equals(entry.id)));
        }
    }

    /** The write under way that was started when Redis answered a decision on this limiter, or null. */
    synchronized CompletableFuture<Void> awaitedWrite() {
        return awaited ? writing : null;
    }

    /** Whether nothing is left to write at {@code now} (and no write is under way). */
    synchronized boolean isDone(long now) {
        expire(now);
        return entries.isEmpty() && writing == null;
    }

    private void expire(long now) {
        while (!entries.isEmpty() && now - entries.peekFirst().nanos >= intervalNanos) {
            entries.removeFirst();
        }
    }

    /** Where the ids of new entries come from: unique among this instance's grants. */
    @FunctionalInterface
    interface IdSource {
        String next();
    }
}
