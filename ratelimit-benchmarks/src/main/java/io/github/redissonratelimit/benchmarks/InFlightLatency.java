package io.github.redissonratelimit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The caller's latency of one method with and without a limit, in one run: {@link #CALLERS} callers, each on its
 * own limiter, call {@link InFlightService} in a closed loop, every call holding {@link #HOLD} (a limiter of 8 in
 * flight that its one caller never fills, a sliding window no run reaches, or no limit). The variants take turns
 * round by round (the first one rotates), and each figure is the median over the rounds, each ratio the median of
 * the rounds' ratios: load from elsewhere on the machine mostly hits the variants alike. The limit's part of a call's
 * latency is what the caller waited beyond the method's own time: the decision before the call and, for the
 * in-flight limit, whatever the give-back after it keeps the caller from returning.
 */
final class InFlightLatency {

    static final int CALLERS = 4;
    static final Duration HOLD = Duration.ofMillis(2);

    enum Variant {
        NONE("no limit"), SLIDING_WINDOW("a sliding window"), IN_FLIGHT("an in-flight limit of 8");

        final String label;

        Variant(String label) {
            this.label = label;
        }
    }

    /** One variant's rounds: their p50 latency and p50 and p99 of the limit's part, in µs. */
    record Rounds(List<Double> p50Micros, List<Double> addedP50Micros, List<Double> addedP99Micros, long calls) {

        double p50() {
            return Stats.median(p50Micros);
        }

        double addedP50() {
            return Stats.median(addedP50Micros);
        }

        double addedP99() {
            return Stats.median(addedP99Micros);
        }
    }

    record Result(int rounds, Duration run, Map<Variant, Rounds> variants) {

        /** The median over the rounds of {@code variant}'s p50 latency over {@code other}'s in the same round. */
        double ratio(Variant variant, Variant other) {
            return medianRatio(variants.get(variant).p50Micros(), variants.get(other).p50Micros());
        }

        /** The same for the limit's part of the latency (p50). */
        double addedRatio(Variant variant, Variant other) {
            return medianRatio(variants.get(variant).addedP50Micros(), variants.get(other).addedP50Micros());
        }

        private static double medianRatio(List<Double> mine, List<Double> theirs) {
            List<Double> ratios = new ArrayList<>();
            for (int round = 0; round < Math.min(mine.size(), theirs.size()); round++) {
                ratios.add(mine.get(round) / theirs.get(round));
            }
            return Stats.median(ratios);
        }
    }

    private InFlightLatency() {
    }

    static Result run(InFlightService service, int rounds, Duration run) throws InterruptedException {
        Variant[] variants = Variant.values();
        for (Variant variant : variants) {
            once(service, variant, run); // warm-up: compiled code, the limiters' keys in Redis
        }
        Map<Variant, List<long[][]>> measured = new EnumMap<>(Variant.class);
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < variants.length; i++) {
                Variant variant = variants[(i + round) % variants.length];
                measured.computeIfAbsent(variant, v -> new ArrayList<>()).add(once(service, variant, run));
            }
        }
        Map<Variant, Rounds> result = new EnumMap<>(Variant.class);
        measured.forEach((variant, runs) -> {
            List<Double> p50 = new ArrayList<>();
            List<Double> addedP50 = new ArrayList<>();
            List<Double> addedP99 = new ArrayList<>();
            long calls = 0;
            for (long[][] latencies : runs) {
                p50.add(Stats.quantile(latencies[0], 0.5) / 1_000.0);
                addedP50.add(Stats.quantile(latencies[1], 0.5) / 1_000.0);
                addedP99.add(Stats.quantile(latencies[1], 0.99) / 1_000.0);
                calls += latencies[0].length;
            }
            result.put(variant, new Rounds(p50, addedP50, addedP99, calls));
        });
        return new Result(rounds, run, result);
    }

    /** One variant for {@code run}: the sorted latencies of its calls and, sorted, their parts beyond the method's. */
    private static long[][] once(InFlightService service, Variant variant, Duration run) throws InterruptedException {
        CountDownLatch go = new CountDownLatch(1);
        long[][][] perCaller = new long[CALLERS][][];
        List<Thread> threads = new ArrayList<>();
        RuntimeException[] failure = new RuntimeException[1];
        long until = System.nanoTime() + run.toNanos();
        for (int c = 0; c < CALLERS; c++) {
            int caller = c;
            Thread thread = new Thread(() -> {
                long[] latency = new long[4_096];
                long[] added = new long[4_096];
                int count = 0;
                try {
                    go.await();
                    while (System.nanoTime() < until) {
                        long start = System.nanoTime();
                        long inside = call(service, variant, caller);
                        long took = System.nanoTime() - start;
                        if (count == latency.length) {
                            latency = Arrays.copyOf(latency, count * 2);
                            added = Arrays.copyOf(added, count * 2);
                        }
                        latency[count] = took;
                        added[count++] = took - inside;
                    }
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                catch (RuntimeException ex) {
                    failure[0] = ex; // a refusal included: none was expected
                }
                perCaller[caller] = new long[][] { Arrays.copyOf(latency, count), Arrays.copyOf(added, count) };
            }, "in-flight-latency-" + c);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        go.countDown();
        TimeUnit.NANOSECONDS.sleep(run.toNanos());
        for (Thread thread : threads) {
            thread.join();
        }
        if (failure[0] != null) {
            throw new IllegalStateException(variant.label + ": a call failed", failure[0]);
        }
        long[] latencies = Arrays.stream(perCaller).flatMapToLong(calls -> Arrays.stream(calls[0])).sorted().toArray();
        long[] added = Arrays.stream(perCaller).flatMapToLong(calls -> Arrays.stream(calls[1])).sorted().toArray();
        return new long[][] { latencies, added };
    }

    private static long call(InFlightService service, Variant variant, int caller) {
        long hold = HOLD.toNanos();
        return switch (variant) {
            case NONE -> service.unlimited(caller, hold);
            case SLIDING_WINDOW -> service.slidingWindow(caller, hold);
            case IN_FLIGHT -> service.inFlight(caller, hold);
        };
    }
}
