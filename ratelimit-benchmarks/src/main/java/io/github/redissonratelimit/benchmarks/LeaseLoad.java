package io.github.redissonratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The load of one JVM in the section on leases: {@code threads} callers from {@code startAt} ({@link System#nanoTime()},
 * the same clock in every JVM of the machine) for {@code nanos}, in a closed loop or, with {@code perSecond} above 0,
 * paced at that many calls per second in all (a caller that fell behind catches up at once). Each allowed decision is
 * written to a {@link SpendLog} with its call's start and end by the wall clock.
 */
final class LeaseLoad {

    private LeaseLoad() {
    }

    record Result(long decisions, long allowed, long errors, long elapsedNanos, Throwable firstError) {

        double perSecond() {
            return decisions * 1e9 / elapsedNanos;
        }

        /** {@code decisions allowed errors elapsedNanos}: the line a worker JVM answers with. */
        String line() {
            return decisions + " " + allowed + " " + errors + " " + elapsedNanos;
        }

        static Result parse(String line) {
            String[] words = line.trim().split(" ");
            return new Result(Long.parseLong(words[0]), Long.parseLong(words[1]), Long.parseLong(words[2]),
                    Long.parseLong(words[3]), null);
        }

        Result plus(Result other) {
            return new Result(decisions + other.decisions, allowed + other.allowed, errors + other.errors,
                    Math.max(elapsedNanos, other.elapsedNanos), firstError != null ? firstError : other.firstError);
        }
    }

    static Result run(BooleanSupplier decision, int threads, long startAt, long nanos, long perSecond, SpendLog log)
            throws InterruptedException {
        Caller[] callers = new Caller[threads];
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            callers[t] = new Caller(decision, t, threads, startAt, startAt + nanos,
                    perSecond > 0 ? threads * 1_000_000_000L / perSecond : 0, log);
            Thread worker = new Thread(callers[t], "lease-load-" + t);
            worker.setDaemon(true);
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        long decisions = 0;
        long allowed = 0;
        long errors = 0;
        long end = startAt;
        Throwable first = null;
        for (Caller caller : callers) {
            decisions += caller.decisions;
            allowed += caller.allowed;
            errors += caller.errors;
            end = Math.max(end, caller.endNanos);
            first = first == null ? caller.firstError : first;
        }
        return new Result(decisions, allowed, errors, end - startAt, first);
    }

    private static final class Caller implements Runnable {

        private final BooleanSupplier decision;
        private final int index;
        private final int threads;
        private final long startAt;
        private final long stopAt;
        private final long periodNanos;
        private final SpendLog log;
        long decisions;
        long allowed;
        long errors;
        long endNanos;
        Throwable firstError;

        Caller(BooleanSupplier decision, int index, int threads, long startAt, long stopAt, long periodNanos,
                SpendLog log) {
            this.decision = decision;
            this.index = index;
            this.threads = threads;
            this.startAt = startAt;
            this.stopAt = stopAt;
            this.periodNanos = periodNanos;
            this.log = log;
        }

        @Override
        public void run() {
            long now;
            while ((now = System.nanoTime()) < startAt) {
                LockSupport.parkNanos(startAt - now);
            }
            // paced callers are spread over the period, not all at its start
            long next = startAt + periodNanos * index / threads;
            while ((now = System.nanoTime()) < stopAt) {
                if (periodNanos > 0 && now < next) {
                    LockSupport.parkNanos(next - now);
                    continue;
                }
                next += periodNanos;
                long started = SpendLog.wallNanos();
                try {
                    if (decision.getAsBoolean()) {
                        log.spent(started, SpendLog.wallNanos());
                        allowed++;
                    }
                }
                catch (RuntimeException ex) {
                    errors++;
                    firstError = firstError == null ? ex : firstError;
                }
                decisions++;
            }
            endNanos = System.nanoTime();
        }
    }
}
