package io.github.redissonratelimit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;

/**
 * What one limiter of each algorithm costs in Redis memory once used up: {@code rate} permits per hour (a token
 * bucket of {@code rate}) taken in grants of one until one is refused, then {@code MEMORY USAGE <key> SAMPLES 0}
 * summed over every key of the limiter ({@code SCAN} of its name and its suffixes). The keys are named like those of
 * a short logical key ({@code memory:<algorithm>:<rate>}): a key's name is part of its cost.
 */
final class AlgorithmMemory {

    /** Grants in flight at once while filling: they share Redisson's pipelines. */
    private static final int BATCH = 2_000;

    private AlgorithmMemory() {
    }

    /**
     * One limiter, used up.
     *
     * @param granted the grants it took before the first refusal (a token bucket's refill during the fill included)
     * @param keys its keys, each as what follows the limiter's name ({@code ""}: the name itself)
     * @param bytes the sum of their {@code MEMORY USAGE}
     * @param nameBytes the length of their names, a part of {@code bytes}
     * @param stringBytes the length of the strings they hold (not their hashes or sorted sets), a part of {@code bytes}
     */
    record Result(Algorithms algorithm, long rate, long granted, List<String> keys, long bytes, long nameBytes,
            long stringBytes) {
    }

    static List<Result> run(RateLimitBackend backend, RedisProbe redis, boolean quick) {
        List<Result> results = new ArrayList<>();
        LimiterNaming naming = new LimiterNaming();
        for (Algorithms algorithm : Algorithms.values()) {
            for (long rate : quick ? MemoryScenario.QUICK_RATES : MemoryScenario.RATES) {
                BenchmarkMain.log("memory of a " + algorithm.label() + ", rate " + rate);
                LimitSpec spec = algorithm.spec(rate, Duration.ofHours(1), rate);
                String name = naming.limiterName("memory:" + algorithm.id() + ":" + rate);
                long granted = useUp(backend, AcquireRequest.of(name, spec, 1));
                List<String> keys = new ArrayList<>();
                long bytes = 0;
                long nameBytes = 0;
                long stringBytes = 0;
                for (String key : redis.keys(LimiterNaming.glob(name) + "*")) {
                    bytes += redis.memoryUsage(key);
                    keys.add(key.substring(name.length()));
                    nameBytes += key.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
                    stringBytes += redis.stringLength(key);
                }
                keys.sort(null);
                results.add(new Result(algorithm, rate, granted, keys, bytes, nameBytes, stringBytes));
            }
        }
        return results;
    }

    /**
     * The reference: the one key of {@link Algorithms#GCRA_SCRIPT} after a grant, named as the token bucket's key of
     * rate 100,000 would be (its value, a timestamp in µs, has the same length at any rate).
     */
    static Result gcraReference(RedissonClient redisson, RedisProbe redis) {
        String name = new LimiterNaming().limiterName("memory:minimal-gcra:100000");
        String key = name + ":value";
        RScript script = redisson.getScript(StringCodec.INSTANCE);
        long hourMicros = Duration.ofHours(1).toNanos() / 1_000;
        script.eval(RScript.Mode.READ_WRITE, Algorithms.gcraScript(), RScript.ReturnType.LIST, List.of(key),
                String.valueOf(hourMicros / 100_000), String.valueOf(hourMicros));
        return new Result(null, 100_000, 1, List.of(":value"), redis.memoryUsage(key),
                key.getBytes(java.nio.charset.StandardCharsets.UTF_8).length, redis.stringLength(key));
    }

    /** Takes the limiter's {@code capacity} in batches, then one permit after the other until one is refused. */
    private static long useUp(RateLimitBackend backend, AcquireRequest grant) {
        long left = grant.spec().capacity();
        long granted = 0;
        while (left > 0) {
            int batch = (int) Math.min(left, BATCH);
            List<CompletableFuture<Decision>> inFlight = new ArrayList<>(batch);
            for (int i = 0; i < batch; i++) {
                inFlight.add(backend.acquire(grant).toCompletableFuture());
            }
            for (CompletableFuture<Decision> decision : inFlight) {
                granted += decision.join().allowed() ? 1 : 0;
            }
            left -= batch;
        }
        while (backend.acquire(grant).toCompletableFuture().join().allowed()) {
            granted++;
        }
        if (granted < grant.spec().capacity()) {
            throw new IllegalStateException("The limiter " + grant.limiterName() + " granted " + granted + " of its "
                    + grant.spec().capacity() + " permits");
        }
        return granted;
    }
}
