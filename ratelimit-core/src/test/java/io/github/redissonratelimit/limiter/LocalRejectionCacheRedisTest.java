package io.github.redissonratelimit.limiter;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.LongCodec;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.RunsAlone;
import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * The flood shortcut on a real Redis: many threads flood one limiter; every rejection made from memory is
 * checked against the limiter's state in Redis, and no sliding window ever holds more grants than the rate. Alone: it
 * compares the grants of two floods run one after the other, which a second JVM taking the CPUs in one of them skews.
 */
@RunsAlone
@ExtendWith(RealRedisExtension.class)
class LocalRejectionCacheRedisTest {

    private static final LimitSpec TWENTY_PER_HALF_SECOND =
            new LimitSpec(20, Duration.ofMillis(500), RateLimitMode.OVERALL);

    /*
     * The permits that are free at time ARGV[1] if nobody takes any meanwhile: the free count plus every
     * grant that has left the window by then (RRateLimiter frees a grant scored s once now - interval >= s).
     * Grants made after the rejection only lower it, and a call at a time <= ARGV[1] moving expired grants
     * into the free count leaves it unchanged; so, read before the clock passes ARGV[1], it is never higher
     * than it was at the rejection. (A later call counts grants as free that are not free at ARGV[1]: such
     * readings are skipped.)
     */
    private static final String FREE_AT_SCRIPT = """
            local free = tonumber(redis.call('get', KEYS[1]) or ARGV[3])
            local gone = redis.call('zrangebyscore', KEYS[2], 0, tonumber(ARGV[1]) - tonumber(ARGV[2]))
            for _, grant in ipairs(gone) do
              local _, permits = struct.unpack('Bc0I', grant)
              free = free + permits
            end
            return free
            """;

    private final LimiterNaming naming = new LimiterNaming();
    private RedisEndpoint redis;
    private RedissonClient client;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
        this.client = redis.newRedissonClient();
    }

    @AfterEach
    void shutdown() {
        client.shutdown();
    }

    @Test
    void aFloodIsRejectedFromMemoryOnlyWhileRedisHasNoPermitAndNoWindowExceedsTheRate() throws Exception {
        String name = naming.limiterName("flood:exact");
        CallTracker tracker = new CallTracker(new RedissonRateLimitBackend(client));
        LocalRejectionCache cache = new LocalRejectionCache(tracker, 1_000);

        Flood flood = flood(cache, tracker, name, 8, Duration.ofSeconds(3), true);

        assertThat(flood.violations).as("local rejections while Redis had the permits free").isEmpty();
        assertThat(flood.verifiedRejections.get()).as("rejections from memory checked against Redis (of %d)",
                flood.localRejections.get()).isGreaterThan(100);
        assertWindowsRespectTheRate(flood.grants);

        String plainName = naming.limiterName("flood:plain");
        Flood plain = flood(new RedissonRateLimitBackend(client), null, plainName, 8, Duration.ofSeconds(3), false);
        assertWindowsRespectTheRate(plain.grants);
        // the shortcut takes no permit away: both see about rate x windows grants (one window of noise allowed)
        assertThat(flood.grants.size()).as("grants with the shortcut vs %d without", plain.grants.size())
                .isGreaterThanOrEqualTo(plain.grants.size() - (int) TWENTY_PER_HALF_SECOND.rate());
    }

    @Test
    void aTenfoldFloodCostsAlmostNoRedisCommandPerRejection() throws Exception {
        LimitSpec fiftyPerSecond = new LimitSpec(50, Duration.ofSeconds(1), RateLimitMode.OVERALL);
        String name = naming.limiterName("flood:tenfold");
        LocalRejectionCache cache = new LocalRejectionCache(new RedissonRateLimitBackend(client), 1_000);
        acquire(cache, name, fiftyPerSecond, 1); // writes the config: not part of the flood

        CommandStats before = redis.commandStats();
        int[] outcome = pacedFlood(cache, name, fiftyPerSecond, 10, Duration.ofSeconds(3), 4);
        CommandStats delta = redis.commandStats().minus(before);

        long scriptCalls = delta.calls("evalsha") + delta.calls("eval");
        int allowed = outcome[0];
        int rejected = outcome[1];
        double commandsPerRejection = (double) (scriptCalls - allowed) / rejected;
        assertThat(rejected).isGreaterThan(allowed);
        // the benchmark measures this figure; here it must just stay far below the 1 round trip of Redis alone
        assertThat(commandsPerRejection).as("commands per rejection (%s, %d allowed, %d rejected)", delta, allowed,
                rejected).isLessThan(0.25);
    }

    /** {@code factor} times the limit's rate, spread over {@code threads}, each call at its own slot. */
    static int[] pacedFlood(RateLimitBackend backend, String name, LimitSpec spec, int factor, Duration duration,
            int threads) throws InterruptedException {
        long callsPerSecond = spec.rate() * factor * 1_000 / spec.interval().toMillis();
        long gapNanos = TimeUnit.SECONDS.toNanos(1) * threads / callsPerSecond;
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        long end = start + duration.toNanos();
        AtomicInteger allowed = new AtomicInteger();
        AtomicInteger rejected = new AtomicInteger();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long first = start + gapNanos * t / threads;
            workers.add(start(() -> {
                for (long slot = first; slot < end; slot += gapNanos) {
                    LockSupport.parkNanos(slot - System.nanoTime());
                    (acquire(backend, name, spec, 1).allowed() ? allowed : rejected).incrementAndGet();
                }
            }));
        }
        for (Thread worker : workers) {
            worker.join();
        }
        return new int[] { allowed.get(), rejected.get() };
    }

    private Flood flood(RateLimitBackend backend, CallTracker tracker, String name, int threads, Duration duration,
            boolean checkLocalRejections) throws InterruptedException {
        Flood flood = new Flood();
        CountDownLatch go = new CountDownLatch(1);
        long end = System.nanoTime() + duration.toNanos();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(start(() -> {
                awaitQuietly(go);
                List<long[]> grants = new ArrayList<>();
                while (System.nanoTime() < end) {
                    long before = System.currentTimeMillis();
                    Decision decision = acquire(backend, name, TWENTY_PER_HALF_SECOND, 1);
                    long after = System.currentTimeMillis();
                    if (decision.allowed()) {
                        grants.add(new long[] { before, after });
                    }
                    else if (checkLocalRejections && !tracker.reachedBackend()) {
                        flood.localRejections.incrementAndGet();
                        // the cache promised: no permit before `before + retryAfter`
                        long lastPromisedMillis = before + decision.retryAfter().toMillis() - 1;
                        long free = freeAt(name, lastPromisedMillis);
                        if (System.currentTimeMillis() > lastPromisedMillis) {
                            // a call after the deadline may already have counted later grants as free
                            continue;
                        }
                        flood.verifiedRejections.incrementAndGet();
                        if (free >= 1) {
                            flood.violations.add("at " + before + " rejected until " + (lastPromisedMillis + 1)
                                    + " but Redis has " + free + " free at " + lastPromisedMillis);
                        }
                    }
                }
                flood.grants.addAll(grants);
            }));
        }
        go.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        return flood;
    }

    private long freeAt(String name, long millis) {
        Long free = client.getScript(LongCodec.INSTANCE).eval(name, RScript.Mode.READ_ONLY, FREE_AT_SCRIPT,
                RScript.ReturnType.LONG, List.of(LimiterNaming.valueKey(name), LimiterNaming.permitsKey(name)),
                millis, TWENTY_PER_HALF_SECOND.interval().toMillis(), TWENTY_PER_HALF_SECOND.rate());
        return free;
    }

    /**
     * Each grant happened in Redis at a time between its call's start and end. Any grants whose calls both
     * started after {@code t - interval} and ended by {@code t} were made inside the window (t - interval, t]:
     * never more than the rate.
     */
    private static void assertWindowsRespectTheRate(List<long[]> grants) {
        long interval = TWENTY_PER_HALF_SECOND.interval().toMillis();
        List<long[]> byEnd = new ArrayList<>(grants);
        byEnd.sort(Comparator.comparingLong(grant -> grant[1]));
        for (long[] last : byEnd) {
            long windowEnd = last[1];
            long inWindow = byEnd.stream()
                    .filter(grant -> grant[0] > windowEnd - interval && grant[1] <= windowEnd).count();
            assertThat(inWindow).as("grants in the window ending at %d", windowEnd)
                    .isLessThanOrEqualTo(TWENTY_PER_HALF_SECOND.rate());
        }
        assertThat(grants).as("the flood got permits").hasSizeGreaterThanOrEqualTo(
                (int) TWENTY_PER_HALF_SECOND.rate());
    }

    private static Thread start(Runnable work) {
        Thread thread = new Thread(work);
        thread.start();
        return thread;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static final class Flood {
        final List<long[]> grants = Collections.synchronizedList(new ArrayList<>());
        final List<String> violations = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger localRejections = new AtomicInteger();
        final AtomicInteger verifiedRejections = new AtomicInteger();
    }

    /** Tells the calling thread whether its last decision went to the backend. */
    private static final class CallTracker implements RateLimitBackend {

        private final RateLimitBackend delegate;
        private final ThreadLocal<Boolean> called = ThreadLocal.withInitial(() -> false);

        CallTracker(RateLimitBackend delegate) {
            this.delegate = delegate;
        }

        @Override
        public CompletionStage<Decision> acquire(AcquireRequest request) {
            String limiterName = request.limiterName();
            LimitSpec spec = request.spec();
            long permits = request.permits();
            called.set(true);
            return delegate.acquire(limiterName, spec, permits);
        }

        boolean reachedBackend() {
            boolean reached = called.get();
            called.set(false);
            return reached;
        }
    }
}
