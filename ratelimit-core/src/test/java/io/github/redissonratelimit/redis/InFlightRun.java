package io.github.redissonratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.redis.ScriptCallLog.ScriptCall;
import io.github.redissonratelimit.test.redis.RedisServerProcess;

/**
 * One seeded run of calls in flight on in-flight limits, on instances that each have their own Redisson client and
 * several caller threads: calls that hold their permits for 0 to 300 ms or, some, for more than a lease period
 * (renewed), end by returning or throwing (given back either way, some twice), or are cancelled before their
 * decision came (a grant then made is lost: no one gives it back nor renews it). Early on Redis is emptied by
 * {@code SCRIPT FLUSH} and {@code FLUSHALL}, and killed and restarted empty; after both, a caller makes calls longer
 * than a lease period that end before the run does; mid-run one instance is killed (its client shut down, its calls
 * never give back) and another takes its place. What Redis ran is recorded across the losses ({@link RecordedRedis}).
 * The seed sets the schedule; threads interleave as they will.
 */
final class InFlightRun {

    /** One limit of the run: calls take 1 to {@code mostPermits} permits of it. */
    record Limit(String name, LimitSpec spec, int mostPermits) {
    }

    /** What the callers saw, and what Redis ran. */
    record Outcome(List<ScriptCall> calls, List<Long> lossMicros, Map<String, Set<Long>> grantedIds,
            Map<String, Long> counts) {
    }

    private static final int CALLERS = 4;

    private final Random random;
    private final RedisServerProcess server;
    private RecordedRedis redis;
    private final List<Limit> limits;
    private final long lengthNanos;
    private final Map<String, Set<Long>> grantedIds = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final List<Instance> instances = new ArrayList<>();
    private final Set<String> names;
    private volatile boolean stopped;
    private volatile long endNanos = Long.MAX_VALUE;

    InFlightRun(long seed, RedisServerProcess server, List<Limit> limits, Duration length) {
        this.random = new Random(seed);
        this.server = server;
        this.limits = limits;
        this.lengthNanos = length.toNanos();
        this.names = Set.copyOf(limits.stream().map(Limit::name).toList());
    }

    /** Runs the schedule on {@code server}, started by {@link RecordedRedis#start()}. */
    Outcome run() throws InterruptedException {
        redis = new RecordedRedis(server, names);
        try {
            Instance killed = instance("a");
            Instance other = instance("b");
            Instance replacement = instance("c");
            long flushAt = fraction(0.05, 0.25);
            long restartAt = fraction(0.05, 0.25);
            List<Fault> faults = new ArrayList<>(List.of(
                    new Fault(fraction(0.2, 0.7), () -> killAndReplace(killed, replacement)),
                    // the losses early, so that calls longer than a lease period run after them
                    new Fault(flushAt, () -> fault("flushall", redis::flushAll)),
                    new Fault(restartAt, () -> fault("redis restarted", redis::restart)),
                    new Fault(Math.max(flushAt, restartAt), other.longCaller::start)));
            faults.sort(Comparator.comparingLong(Fault::atNanos)); // stable: the long calls after the losses
            long start = System.nanoTime();
            endNanos = start + lengthNanos;
            killed.start();
            other.start();
            for (Fault fault : faults) {
                sleepUntil(start + fault.atNanos());
                fault.action().run();
            }
            sleepUntil(endNanos);
        }
        finally {
            stopped = true;
            for (Instance instance : instances) {
                instance.join();
            }
            redis.close();
            instances.forEach(Instance::forgetLeases);
        }
        Map<String, Long> totals = new TreeMap<>();
        counts.forEach((name, count) -> totals.put(name, count.sum()));
        return new Outcome(redis.calls(), redis.lossMicros(), grantedIds, totals);
    }

    private record Fault(long atNanos, Runnable action) {
    }

    private long fraction(double from, double to) {
        return (long) (lengthNanos * (from + random.nextDouble() * (to - from)));
    }

    /** An instance, warmed up (scripts loaded, connections open) on a limiter of its own: its callers wait. */
    private Instance instance(String name) {
        Config config = new Config();
        // a command lost with the Redis restart fails within about a second, not Redisson's 3 s and its retries
        config.useSingleServer().setAddress(redis.endpoint().address()).setConnectionMinimumIdleSize(CALLERS)
                .setTimeout(1_000).setRetryAttempts(1).setRetryInterval(100);
        Instance instance = new Instance(name, Redisson.create(config), random.nextLong());
        instances.add(instance);
        AcquireRequest warmUp = AcquireRequest.of("warm-up:" + name, limits.get(0).spec(), 1);
        Decision granted = instance.backend.acquire(warmUp).join();
        instance.backend.release(warmUp, granted).toCompletableFuture().join();
        return instance;
    }

    /** The instance dies as after kill -9: its calls never give back, its renewals stop; another starts. */
    private void killAndReplace(Instance instance, Instance replacement) {
        instance.killed = true;
        instance.client.shutdown(0, 0, TimeUnit.MILLISECONDS);
        count("instance killed");
        replacement.start();
    }

    private void fault(String name, Runnable fault) {
        fault.run();
        count(name);
    }

    private void count(String what) {
        counts.computeIfAbsent(what, key -> new LongAdder()).increment();
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long left = nanoTime - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    /** An application instance: a Redisson client, the backend on it, and its callers. */
    private final class Instance {

        final String name;
        final RedissonClient client;
        final RedissonRateLimitBackend backend;
        final List<Thread> callers = new ArrayList<>();
        /** A caller whose calls all hold their permits longer than a lease period: started after the losses. */
        final Thread longCaller;
        /** The long calls it made: its thread only. */
        int longCallsMade;
        /** Grants its callers hold now: a killed instance's are forgotten at the end (no renewal left running). */
        final Map<Decision, AcquireRequest> holding = new ConcurrentHashMap<>();
        volatile boolean killed;

        Instance(String name, RedissonClient client, long seed) {
            this.name = name;
            this.client = client;
            this.backend = new RedissonRateLimitBackend(client);
            Random seeds = new Random(seed);
            for (int i = 0; i < CALLERS; i++) {
                long callerSeed = seeds.nextLong();
                callers.add(new Thread(() -> call(new Random(callerSeed), false), "in-flight-" + name + "-" + i));
            }
            long longSeed = seeds.nextLong();
            longCaller = new Thread(() -> call(new Random(longSeed), true), "in-flight-" + name + "-long");
        }

        void start() {
            callers.forEach(Thread::start);
        }

        void join() throws InterruptedException {
            for (Thread caller : callers) {
                caller.join(30_000);
            }
            longCaller.join(30_000);
            if (!killed) {
                client.shutdown(0, 0, TimeUnit.MILLISECONDS);
            }
        }

        /** Ends the renewals of what a killed instance held (its client is gone: nothing reaches Redis). */
        void forgetLeases() {
            holding.forEach((decision, request) -> backend.release(request, decision));
        }

        /** @param longCalls each call holds its permits longer than a lease period */
        private void call(Random random, boolean longCalls) {
            while (more(longCalls)) {
                Limit limit = limits.get(random.nextInt(limits.size()));
                AcquireRequest request = AcquireRequest.of(limit.name(), limit.spec(),
                        1 + random.nextInt(limit.mostPermits()));
                CompletableFuture<Decision> asked = backend.acquire(request);
                if (random.nextInt(10) == 0) {
                    LockSupport.parkNanos(random.nextInt(1_500_000));
                    if (asked.cancel(false)) {
                        count("cancelled before the decision");
                        continue;
                    }
                }
                Decision decision;
                try {
                    decision = asked.get(10, TimeUnit.SECONDS);
                }
                catch (Exception ex) {
                    count("failed (Redis away, or the instance killed)");
                    LockSupport.parkNanos(20_000_000);
                    continue;
                }
                if (!decision.allowed()) {
                    count("refused");
                    LockSupport.parkNanos(2_000_000 + random.nextInt(10_000_000));
                    continue;
                }
                hold(limit, request, decision, random, longCalls);
            }
        }

        /** Whether to make another call: a long caller makes one even after the run's end, more while they fit. */
        private boolean more(boolean longCalls) {
            if (killed || (!longCalls && stopped)) {
                return false;
            }
            long longest = limits.stream().mapToLong(limit -> limit.spec().interval().toNanos() * 11 / 10).max()
                    .orElseThrow();
            return longCallsMade == 0 ? System.nanoTime() < endNanos + lengthNanos
                    : !stopped && System.nanoTime() + longest < endNanos;
        }

        private void hold(Limit limit, AcquireRequest request, Decision decision, Random random, boolean longCall) {
            count("granted");
            grantedIds.computeIfAbsent(limit.name(), name -> ConcurrentHashMap.newKeySet())
                    .add(Long.parseLong(decision.receipt().substring(1)));
            holding.put(decision, request);
            long lease = limit.spec().interval().toNanos();
            long slowly = lease + lease / 20 + random.nextLong(longCall ? lease / 20 : lease / 4);
            // longer than a lease period (renewed) when it can end before the run does
            boolean slow = longCall || (random.nextInt(3) == 0 && System.nanoTime() + slowly < endNanos);
            int ending = random.nextInt(20);
            try {
                work(slow ? slowly : random.nextInt(300_000_001), longCall);
                longCallsMade += longCall ? 1 : 0;
                if (ending < 3) {
                    throw new IllegalStateException("the call failed");
                }
                count(longCall ? "long call" : slow ? "slow call" : "call returned");
            }
            catch (IllegalStateException ex) {
                count("call threw");
            }
            finally {
                if (!killed) { // a killed JVM runs no finally
                    holding.remove(decision);
                    giveBack(request, decision);
                    if (ending == 3) {
                        count("given back twice");
                        giveBack(request, decision);
                    }
                }
            }
        }

        /** The call's work: unless {@code toTheEnd}, it ends early when the run does; always when its JVM dies. */
        private void work(long nanos, boolean toTheEnd) {
            long end = System.nanoTime() + nanos;
            for (long left = nanos; left > 0 && (toTheEnd || !stopped) && !killed; left = end - System.nanoTime()) {
                LockSupport.parkNanos(Math.min(left, 10_000_000));
            }
        }

        private void giveBack(AcquireRequest request, Decision decision) {
            try {
                backend.release(request, decision).toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
            catch (Exception ex) {
                count("give-back failed");
            }
        }
    }
}
