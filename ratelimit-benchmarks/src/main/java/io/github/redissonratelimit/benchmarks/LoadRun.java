package io.github.redissonratelimit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A closed loop: {@code threads} callers each make one decision after the other for a while. */
final class LoadRun {

    private LoadRun() {
    }

    static Result run(Contender contender, int threads, Duration duration) throws InterruptedException {
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        Caller[] callers = new Caller[threads];
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Caller caller = new Caller(contender, t, ready, go);
            callers[t] = caller;
            Thread worker = new Thread(caller, "load-" + contender.id() + "-" + t);
            worker.setDaemon(true);
            workers.add(worker);
            worker.start();
        }
        ready.await();
        long start = System.nanoTime();
        go.countDown();
        TimeUnit.NANOSECONDS.sleep(duration.toNanos());
        for (Caller caller : callers) {
            caller.stop = true;
        }
        for (Thread worker : workers) {
            worker.join();
        }
        long elapsed = 0;
        for (Caller caller : callers) {
            elapsed = Math.max(elapsed, caller.endNanos - start);
        }
        return Result.of(callers, elapsed);
    }

    record Result(long decisions, long allowed, long errors, long elapsedNanos, long[] sortedLatencies,
            Throwable firstError) {

        static Result of(Caller[] callers, long elapsedNanos) {
            long decisions = 0;
            long allowed = 0;
            long errors = 0;
            Throwable firstError = null;
            int samples = 0;
            for (Caller caller : callers) {
                decisions += caller.decisions;
                allowed += caller.allowed;
                errors += caller.errors;
                samples += caller.count;
                firstError = firstError == null ? caller.firstError : firstError;
            }
            long[] latencies = new long[samples];
            int offset = 0;
            for (Caller caller : callers) {
                System.arraycopy(caller.latencies, 0, latencies, offset, caller.count);
                offset += caller.count;
            }
            Arrays.sort(latencies);
            return new Result(decisions, allowed, errors, elapsedNanos, latencies, firstError);
        }

        double perSecond() {
            return decisions * 1e9 / elapsedNanos;
        }

        /** Latency at {@code quantile} (0..1) in microseconds. */
        double micros(double quantile) {
            return Stats.quantile(sortedLatencies, quantile) / 1_000.0;
        }
    }

    private static final class Caller implements Runnable {

        private final Contender contender;
        private final int index;
        private final CountDownLatch ready;
        private final CountDownLatch go;
        volatile boolean stop;
        long decisions;
        long allowed;
        long errors;
        Throwable firstError;
        long[] latencies = new long[16_384];
        int count;
        long endNanos;

        Caller(Contender contender, int index, CountDownLatch ready, CountDownLatch go) {
            this.contender = contender;
            this.index = index;
            this.ready = ready;
            this.go = go;
        }

        @Override
        public void run() {
            int user = (index * 37) % Users.COUNT;
            ready.countDown();
            try {
                go.await();
            }
            catch (InterruptedException ex) {
                return;
            }
            while (!stop) {
                long started = System.nanoTime();
                try {
                    if (contender.decide(user)) {
                        allowed++;
                    }
                }
                catch (RuntimeException ex) {
                    errors++;
                    firstError = firstError == null ? ex : firstError;
                }
                long took = System.nanoTime() - started;
                decisions++;
                if (count == latencies.length) {
                    latencies = Arrays.copyOf(latencies, count * 2);
                }
                latencies[count++] = took;
                user = user + 1 == Users.COUNT ? 0 : user + 1;
            }
            endNanos = System.nanoTime();
        }
    }
}
