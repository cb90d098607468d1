package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;

/**
 * Threads that take permits from one limiter as fast as they are granted: each retries 2ms after a
 * rejection. Every grant is counted on the caller's side too (per backend), to be compared with what Redis
 * recorded, and the longest retry-after any rejection answered is kept.
 */
final class Hammer {

    private final List<RateLimitBackend> backends;
    private final int threadsPerBackend;
    private final long permits;
    private final AtomicInteger granted = new AtomicInteger();
    private final AtomicIntegerArray grantedPerBackend;
    private final AtomicInteger attempts = new AtomicInteger();
    private final AtomicLong longestRetryAfterMillis = new AtomicLong();

    Hammer(List<RateLimitBackend> backends, int threadsPerBackend) {
        this(backends, threadsPerBackend, 1);
    }

    /** @param permits what each call asks for */
    Hammer(List<RateLimitBackend> backends, int threadsPerBackend, long permits) {
        this.backends = List.copyOf(backends);
        this.threadsPerBackend = threadsPerBackend;
        this.permits = permits;
        this.grantedPerBackend = new AtomicIntegerArray(backends.size());
    }

    /**
     * Runs the threads for {@code duration}; {@code midRun} (may be null) runs in the calling thread after
     * {@code midRunAfter}.
     */
    void run(String name, LimitSpec spec, Duration duration, Duration midRunAfter, Runnable midRun) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(backends.size() * threadsPerBackend);
        CountDownLatch go = new CountDownLatch(1);
        long end = System.currentTimeMillis() + duration.toMillis();
        List<Future<?>> running = new ArrayList<>();
        try {
            for (int t = 0; t < backends.size() * threadsPerBackend; t++) {
                int index = t % backends.size();
                RateLimitBackend backend = backends.get(index);
                running.add(threads.submit(() -> {
                    go.await();
                    while (System.currentTimeMillis() < end) {
                        attempts.incrementAndGet();
                        Decision decision = acquire(backend, name, spec, permits);
                        if (decision.allowed()) {
                            granted.incrementAndGet();
                            grantedPerBackend.incrementAndGet(index);
                        }
                        else {
                            longestRetryAfterMillis.accumulateAndGet(decision.retryAfter().toMillis(), Math::max);
                            Thread.sleep(2);
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            if (midRun != null) {
                Thread.sleep(midRunAfter.toMillis());
                midRun.run();
            }
            for (Future<?> thread : running) {
                thread.get();
            }
        }
        finally {
            threads.shutdownNow();
        }
    }

    int granted() {
        return granted.get();
    }

    int grantedBy(int backend) {
        return grantedPerBackend.get(backend);
    }

    int attempts() {
        return attempts.get();
    }

    long longestRetryAfterMillis() {
        return longestRetryAfterMillis.get();
    }
}
