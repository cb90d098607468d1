package io.github.redissonratelimit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redissonratelimit.RateLimitExceededException;

/**
 * Callers on an in-flight limit of {@link InFlightService#LIMIT} across two instances ({@link InFlightService#export}
 * in two application contexts, each on a Redisson client of its own): each caller calls one instance in a closed loop,
 * every call holding for a random 1 to 5 ms, and calls again at once whether admitted or refused.
 */
final class InFlightLoad {

    /** The shortest and longest a call holds, in µs (uniform). */
    static final long SHORTEST_HOLD_MICROS = 1_000;
    static final long LONGEST_HOLD_MICROS = 5_000;

    private InFlightLoad() {
    }

    /**
     * One run.
     *
     * @param admitted calls the limit let in, {@code refused} those it refused, {@code errors} those that failed
     * otherwise
     * @param heldNanos the time the admitted calls spent inside the method, summed
     * @param mostInside the most calls inside the method at once, across both instances (as the JVM saw them: the
     * permits they held in Redis were taken before and given back after)
     */
    record Result(int callers, long admitted, long refused, long errors, long elapsedNanos, long heldNanos,
            int mostInside, Throwable firstError) {

        double admittedPerSecond() {
            return admitted * 1e9 / elapsedNanos;
        }

        double refusedPerSecond() {
            return refused * 1e9 / elapsedNanos;
        }

        /** The mean time an admitted call spent inside the method, in ms. */
        double meanHoldMillis() {
            return admitted == 0 ? Double.NaN : heldNanos / 1e6 / admitted;
        }

        /** Permits held on average as the JVM saw them: calls inside the method × their time there, per second. */
        double meanInside() {
            return heldNanos / (double) elapsedNanos;
        }
    }

    static Result run(List<InFlightService> instances, int callers, Duration duration, long seed)
            throws InterruptedException {
        CountDownLatch ready = new CountDownLatch(callers);
        CountDownLatch go = new CountDownLatch(1);
        List<Caller> all = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            Caller caller = new Caller(instances.get(i % instances.size()), new SplittableRandom(seed + i), ready, go);
            all.add(caller);
            Thread thread = new Thread(caller, "in-flight-" + i);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        ready.await();
        InFlightService.takeMostInside();
        long start = System.nanoTime();
        go.countDown();
        TimeUnit.NANOSECONDS.sleep(duration.toNanos());
        all.forEach(caller -> caller.stop = true);
        for (Thread thread : threads) {
            thread.join();
        }
        long elapsed = System.nanoTime() - start;
        long admitted = 0;
        long refused = 0;
        long errors = 0;
        long held = 0;
        Throwable firstError = null;
        for (Caller caller : all) {
            admitted += caller.admitted;
            refused += caller.refused;
            errors += caller.errors;
            held += caller.heldNanos;
            firstError = firstError == null ? caller.firstError : firstError;
        }
        return new Result(callers, admitted, refused, errors, elapsed, held, InFlightService.takeMostInside(),
                firstError);
    }

    private static final class Caller implements Runnable {

        private final InFlightService instance;
        private final SplittableRandom random;
        private final CountDownLatch ready;
        private final CountDownLatch go;
        volatile boolean stop;
        long admitted;
        long refused;
        long errors;
        long heldNanos;
        Throwable firstError;

        Caller(InFlightService instance, SplittableRandom random, CountDownLatch ready, CountDownLatch go) {
            this.instance = instance;
            this.random = random;
            this.ready = ready;
            this.go = go;
        }

        @Override
        public void run() {
            ready.countDown();
            try {
                go.await();
            }
            catch (InterruptedException ex) {
                return;
            }
            while (!stop) {
                long hold = random.nextLong(SHORTEST_HOLD_MICROS, LONGEST_HOLD_MICROS + 1) * 1_000;
                try {
                    heldNanos += instance.export(hold);
                    admitted++;
                }
                catch (RateLimitExceededException ex) {
                    refused++;
                }
                catch (RuntimeException ex) {
                    errors++;
                    firstError = firstError == null ? ex : firstError;
                }
            }
        }
    }
}
