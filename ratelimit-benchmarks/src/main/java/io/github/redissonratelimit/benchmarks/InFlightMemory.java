package io.github.redissonratelimit.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;

/**
 * What an in-flight limiter costs in Redis memory with {@code N} leases held: a limit of {@code N} with the default
 * lease period, filled with grants of one until one is refused, then {@code MEMORY USAGE <key> SAMPLES 0} of each of
 * its keys (found by {@code SCAN} of its name); its leases are then given back. Named like the algorithms' limiters of
 * {@link AlgorithmMemory} ({@code memory:in-flight:<N>}).
 */
final class InFlightMemory {

    private static final Duration LEASE = Duration.ofSeconds(30);

    /**
     * The leases held: a few, as many as Redis keeps in a {@code listpack} (128) and one more, and 1,000. Not
     * 100,000 as for the algorithms: the backend renews each lease with a script call of its own, and with 100,000
     * held a lease ended unrenewed before the limiter was full and Redisson's pings timed out on this machine.
     */
    static final long[] LEASES = { 1, 8, 128, 129, 1_000 };
    static final long[] QUICK_LEASES = { 8, 129 };

    /** Grants asked at once while filling: they share Redisson's pipelines. */
    private static final int BATCH = 2_000;

    private InFlightMemory() {
    }

    /**
     * One limiter with {@code leases} held.
     *
     * @param valueBytes the free-permits key ({@code :value}), {@code leasesBytes} the leases key ({@code :permits})
     * @param leasesEncoding how Redis keeps the leases key ({@code listpack} up to 128 members, then {@code skiplist})
     * @param holder what each lease names as its holder (this JVM's backend), as the state read tells it
     */
    record Result(long leases, List<String> keys, long bytes, long valueBytes, long leasesBytes, String leasesEncoding,
            long nameBytes, String holder) {
    }

    static List<Result> run(RedissonRateLimitBackend backend, RedisProbe redis, boolean quick) {
        List<Result> results = new ArrayList<>();
        LimiterNaming naming = new LimiterNaming();
        for (long leases : quick ? QUICK_LEASES : LEASES) {
            BenchmarkMain.log("memory of an in-flight limiter, " + leases + " leases held");
            LimitSpec spec = new LimitSpec(leases, LEASE, RateLimitMode.OVERALL, LimitAlgorithm.IN_FLIGHT);
            String name = naming.limiterName("memory:in-flight:" + leases);
            AcquireRequest grant = AcquireRequest.of(name, spec, 1);
            List<Decision> held = fill(backend, grant);
            try {
                List<String> keys = new ArrayList<>();
                long bytes = 0;
                long valueBytes = 0;
                long leasesBytes = 0;
                long nameBytes = 0;
                String encoding = null;
                for (String key : redis.keys(LimiterNaming.glob(name) + "*")) {
                    long usage = redis.memoryUsage(key);
                    bytes += usage;
                    nameBytes += key.getBytes(StandardCharsets.UTF_8).length;
                    String suffix = key.substring(name.length());
                    keys.add(suffix);
                    if (suffix.equals(":value")) {
                        valueBytes = usage;
                    }
                    else if (suffix.equals(":permits")) {
                        leasesBytes = usage;
                        encoding = redis.encoding(key);
                    }
                }
                keys.sort(null);
                String holder = String.join(",", backend.state(name, spec).toCompletableFuture().join().holders()
                        .keySet());
                results.add(new Result(leases, keys, bytes, valueBytes, leasesBytes, encoding, nameBytes, holder));
            }
            finally {
                giveBack(backend, grant, held);
            }
        }
        return results;
    }

    /** Takes the limit's leases in batches, then checks that one more is refused. */
    private static List<Decision> fill(RedissonRateLimitBackend backend, AcquireRequest grant) {
        List<Decision> held = new ArrayList<>();
        long left = grant.spec().rate();
        while (left > 0) {
            int batch = (int) Math.min(left, BATCH);
            List<CompletableFuture<Decision>> asked = new ArrayList<>(batch);
            for (int i = 0; i < batch; i++) {
                asked.add(backend.acquire(grant).toCompletableFuture());
            }
            for (CompletableFuture<Decision> decision : asked) {
                Decision decided = decision.join();
                if (decided.allowed()) {
                    held.add(decided);
                }
            }
            left -= batch;
        }
        if (held.size() != grant.spec().rate() || backend.acquire(grant).toCompletableFuture().join().allowed()) {
            throw new IllegalStateException("The in-flight limiter " + grant.limiterName() + " of "
                    + grant.spec().rate() + " granted " + held.size() + " leases, then not a refusal");
        }
        return held;
    }

    private static void giveBack(RedissonRateLimitBackend backend, AcquireRequest grant, List<Decision> held) {
        for (int from = 0; from < held.size(); from += BATCH) {
            CompletableFuture.allOf(held.subList(from, Math.min(held.size(), from + BATCH)).stream()
                    .map(decision -> backend.release(grant, decision).toCompletableFuture())
                    .toArray(CompletableFuture[]::new)).join();
        }
    }
}
