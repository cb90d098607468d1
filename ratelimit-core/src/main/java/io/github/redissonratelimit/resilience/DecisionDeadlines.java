package io.github.redissonratelimit.resilience;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Fails the futures that are not done within one timeout with {@link TimeoutException}: never early, at most about one
 * tick late (a twentieth of the timeout, between 1 and 50 ms).
 *
 * <p>Why not {@link CompletableFuture#orTimeout}: its one scheduler thread is signalled whenever a new deadline is the
 * earliest it holds, which at low concurrency is every decision (the previous one was answered and its deadline
 * removed): a thread wake-up per decision, which cost about 13 µs of CPU and as much latency per decision on the
 * benchmark machine (see {@code docs/performance.md}). Here every deadline is {@code timeout} after it was set, so the
 * order in which they are set is the order in which they fall due: they are queued in that order, and one daemon thread
 * looks at the oldest ones once per tick while any is queued. A decision pays a queue insertion and a clock read; the
 * thread ends after a second without deadlines and starts again with the next one.
 */
final class DecisionDeadlines {

    private static final AtomicInteger threads = new AtomicInteger();
    private static final long IDLE_NANOS = Duration.ofSeconds(1).toNanos();

    private final long timeoutNanos;
    private final long tickNanos;
    private final ConcurrentLinkedQueue<Deadline> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean running = new AtomicBoolean();

    DecisionDeadlines(Duration timeout) {
        this.timeoutNanos = timeout.toNanos();
        this.tickNanos = Math.max(Duration.ofMillis(1).toNanos(), Math.min(Duration.ofMillis(50).toNanos(), timeoutNanos / 20));
    }

    /** @return {@code future}, which fails with {@link TimeoutException} unless it is done within the timeout */
    <T> CompletableFuture<T> within(CompletableFuture<T> future) {
        return within(future, System.nanoTime());
    }

    /** Like {@link #within(CompletableFuture)}, for a call sent at {@code sentAt} (nanoTime). */
    <T> CompletableFuture<T> within(CompletableFuture<T> future, long sentAt) {
        queue.add(new Deadline(sentAt + timeoutNanos, future));
        if (!running.get() && running.compareAndSet(false, true)) {
            start();
        }
        return future;
    }

    private void start() {
        Thread thread = new Thread(this::run, "ratelimit-deadlines-" + threads.incrementAndGet());
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        long idleSince = System.nanoTime();
        while (true) {
            LockSupport.parkNanos(this, tickNanos);
            long now = System.nanoTime();
            expire(now);
            if (!queue.isEmpty()) {
                idleSince = now;
                continue;
            }
            if (now - idleSince < IDLE_NANOS) {
                continue;
            }
            running.set(false);
            // a deadline set while this thread was deciding to end either sees it still running or finds it gone and
            // starts another; only one of the two keeps running
            if (queue.isEmpty() || !running.compareAndSet(false, true)) {
                return;
            }
            idleSince = now;
        }
    }

    /** Drops the deadlines of the futures already done and fails those due, oldest first. */
    void expire(long now) {
        Deadline oldest;
        while ((oldest = queue.peek()) != null) {
            if (!oldest.future().isDone()) {
                if (now - oldest.at() < 0) {
                    return;
                }
                oldest.future().completeExceptionally(new TimeoutException());
            }
            queue.poll();
        }
    }

    private record Deadline(long at, CompletableFuture<?> future) {
    }
}
