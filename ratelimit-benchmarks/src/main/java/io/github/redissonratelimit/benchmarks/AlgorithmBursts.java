package io.github.redissonratelimit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;

/**
 * The same bursty client against one limiter of each algorithm at once, {@link #RATE} per second (a token bucket of
 * {@link #RATE}), against real Redis: what each grants, per {@link #BUCKET_MS} ms. The schedule starts on a whole
 * second of Redis's clock, so that the fixed windows (aligned to the epoch) start on the chart's whole seconds; a
 * request counts in the bucket it was scheduled in, a grant in the bucket its reply arrived in (nearer to Redis's
 * clock when the client falls behind its schedule).
 */
final class AlgorithmBursts {

    static final long RATE = 10;

    static final int BUCKET_MS = 100;

    static final int SPAN_MS = 6_000;

    /** The steady part of the load: one request every this many ms. */
    static final int STEADY_EVERY_MS = 250;

    /** The bursts: {ms after the start, requests}. */
    static final int[][] BURSTS = { { 10, 30 }, { 2_950, 20 }, { 3_010, 20 }, { 4_510, 15 } };

    private AlgorithmBursts() {
    }

    /**
     * Requests and grants per time bucket.
     *
     * @param requests the requests sent in each bucket (to each limiter)
     * @param granted by algorithm, in {@link Algorithms} order, the grants of each bucket
     * @param lagMillis the longest a reply arrived after its request's scheduled time
     */
    record Result(int[] requests, List<int[]> granted, double lagMillis) {

        int buckets() {
            return requests.length;
        }

        int total(int[] counts) {
            int sum = 0;
            for (int count : counts) {
                sum += count;
            }
            return sum;
        }
    }

    /** When each request is sent, in ms after the start, in order. */
    static List<Integer> schedule() {
        List<Integer> times = new ArrayList<>();
        for (int steady = STEADY_EVERY_MS + 10; steady < SPAN_MS; steady += STEADY_EVERY_MS) {
            times.add(steady);
        }
        for (int[] burst : BURSTS) {
            for (int i = 0; i < burst[1]; i++) {
                times.add(burst[0]);
            }
        }
        times.sort(null);
        return times;
    }

    static Result run(RateLimitBackend backend, RedisProbe redis) {
        BenchmarkMain.log("bursts against each algorithm, " + SPAN_MS + " ms");
        LimiterNaming naming = new LimiterNaming();
        Algorithms[] algorithms = Algorithms.values();
        AcquireRequest[] requests = new AcquireRequest[algorithms.length];
        List<AtomicIntegerArray> granted = new ArrayList<>();
        for (int a = 0; a < algorithms.length; a++) {
            requests[a] = AcquireRequest.of(naming.limiterName("bursts:" + algorithms[a].id() + ":" + System.nanoTime()),
                    algorithms[a].spec(RATE, Duration.ofSeconds(1), RATE), 1);
            granted.add(new AtomicIntegerArray(SPAN_MS / BUCKET_MS));
        }
        int[] sent = new int[SPAN_MS / BUCKET_MS];
        List<CompletableFuture<?>> decisions = new ArrayList<>();
        AtomicLong lag = new AtomicLong();
        long start = nextRedisSecond(redis);
        for (int at : schedule()) {
            long scheduled = start + at * 1_000_000L;
            LockSupport.parkNanos(scheduled - System.nanoTime());
            sent[at / BUCKET_MS]++;
            for (int a = 0; a < algorithms.length; a++) {
                AtomicIntegerArray counts = granted.get(a);
                decisions.add(backend.acquire(requests[a]).toCompletableFuture().thenAccept(decision -> {
                    long now = System.nanoTime();
                    lag.accumulateAndGet(now - scheduled, Math::max);
                    if (decision.allowed()) {
                        counts.incrementAndGet((int) Math.min((now - start) / 1_000_000 / BUCKET_MS, sent.length - 1));
                    }
                }));
            }
        }
        CompletableFuture.allOf(decisions.toArray(CompletableFuture[]::new)).join();
        List<int[]> grants = new ArrayList<>();
        for (AtomicIntegerArray counts : granted) {
            int[] copy = new int[counts.length()];
            for (int i = 0; i < copy.length; i++) {
                copy[i] = counts.get(i);
            }
            grants.add(copy);
        }
        return new Result(sent, grants, lag.get() / 1e6);
    }

    /**
     * The {@link System#nanoTime()} at which Redis's clock next reads a whole second (at least 200 ms away), taking
     * the reply of {@code TIME} to be read halfway through its round trip.
     */
    private static long nextRedisSecond(RedisProbe redis) {
        long before = System.nanoTime();
        long redisMicros = redis.timeMicros();
        long after = System.nanoTime();
        long untilSecond = 1_000_000 - redisMicros % 1_000_000;
        if (untilSecond < 200_000) {
            untilSecond += 1_000_000;
        }
        return before + (after - before) / 2 + untilSecond * 1_000;
    }
}
