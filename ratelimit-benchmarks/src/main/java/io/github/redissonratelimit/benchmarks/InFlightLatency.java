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
 * latency is split where the method's own time ({@link InFlightService#lastCall}) splits it: before the method (the
 * decision), and after it until the caller has its answer (for the in-flight limit, sending the give-back, whose
 * answer the caller does not wait for).
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

    /**
     * One variant's rounds, in µs: their p50 latency, the p50 of the part before the method and the p50 and p99 of
     * the part after it.
     */
    record Rounds(List<Double> p50Micros, List<Double> beforeP50Micros, List<Double> afterP50Micros,
            List<Double> afterP99Micros, long calls) {

        double p50() {
            return Stats.median(p50Micros);
        }

        double beforeP50() {
            return Stats.median(beforeP50Micros);
        }

        double afterP50() {
            return Stats.median(afterP50Micros);
        }

        double afterP99() {
            return Stats.median(afterP99Micros);
        }
    }

    record Result(int rounds, Duration run, Map<Variant, Rounds> variants) {

        /** The median over the rounds of {@code variant}'s p50 latency over {@code other}'s in the same round. */
        double ratio(Variant variant, Variant other) {
            return medianRatio(variants.get(variant).p50Micros(), variants.get(other).p50Micros());
        }

        /** The same for the part before the method (p50): the decision. */
        double beforeRatio(Variant variant, Variant other) {
            return medianRatio(variants.get(variant).beforeP50Micros(), variants.get(other).beforeP50Micros());
        }

        /** The median over the rounds of {@code variant}'s p50 part after the method less {@code other}'s, in µs. */
        double afterDifference(Variant variant, Variant other) {
            List<Double> mine = variants.get(variant).afterP50Micros();
            List<Double> theirs = variants.get(other).afterP50Micros();
            List<Double> differences = new ArrayList<>();
            for (int round = 0; round < Math.min(mine.size(), theirs.size()); round++) {
                differences.add(mine.get(round) - theirs.get(round));
            }
            return Stats.median(differences);
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
            List<Double> beforeP50 = new ArrayList<>();
            List<Double> afterP50 = new ArrayList<>();
            List<Double> afterP99 = new ArrayList<>();
            long calls = 0;
            for (long[][] latencies : runs) {
                p50.add(Stats.quantile(latencies[0], 0.5) / 1_000.0);
                beforeP50.add(Stats.quantile(latencies[1], 0.5) / 1_000.0);
                afterP50.add(Stats.quantile(latencies[2], 0.5) / 1_000.0);
                afterP99.add(Stats.quantile(latencies[2], 0.99) / 1_000.0);
                calls += latencies[0].length;
            }
            result.put(variant, new Rounds(p50, beforeP50, afterP50, afterP99, calls));
        });
        return new Result(rounds, run, result);
    }

    /** One variant for {@code run}: its calls' latencies, their parts before and after the method, each sorted. */
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
                long[] before = new long[4_096];
                long[] after = new long[4_096];
                int count = 0;
                try {
                    go.await();
                    while (System.nanoTime() < until) {
                        long start = System.nanoTime();
                        call(service, variant, caller);
                        long end = System.nanoTime();
                        long[] inside = InFlightService.lastCall();
                        if (count == latency.length) {
                            latency = Arrays.copyOf(latency, count * 2);
                            before = Arrays.copyOf(before, count * 2);
                            after = Arrays.copyOf(after, count * 2);
                        }
                        latency[count] = end - start;
                        before[count] = inside[0] - start;
                        after[count++] = end - inside[1];
                    }
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                catch (RuntimeException ex) {
                    failure[0] = ex; // a refusal included: none was expected
                }
                perCaller[caller] = new long[][] { Arrays.copyOf(latency, count), Arrays.copyOf(before, count),
                        Arrays.copyOf(after, count) };
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
        long[][] sorted = new long[3][];
        for (int part = 0; part < sorted.length; part++) {
            int of = part;
            sorted[part] = Arrays.stream(perCaller).flatMapToLong(calls -> Arrays.stream(calls[of])).sorted().toArray();
        }
        return sorted;
    }

    private static void call(InFlightService service, Variant variant, int caller) {
        long hold = HOLD.toNanos();
        switch (variant) {
            case NONE -> service.unlimited(caller, hold);
            case SLIDING_WINDOW -> service.slidingWindow(caller, hold);
            case IN_FLIGHT -> service.inFlight(caller, hold);
        }
    }
}
