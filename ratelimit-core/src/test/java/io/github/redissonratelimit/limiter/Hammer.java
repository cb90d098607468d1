package io.github.redissonratelimit.limiter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads that take permits from one limiter as fast as they are granted: each retries 2ms after a
 * rejection. Every grant is counted on the caller's side too, to be compared with what Redis recorded.
 */
final class Hammer {

    private final List<RateLimitBackend> backends;
    private final int threadsPerBackend;
    private final AtomicInteger granted = new AtomicInteger();
    private final AtomicInteger attempts = new AtomicInteger();

    Hammer(List<RateLimitBackend> backends, int threadsPerBackend) {
        this.backends = List.copyOf(backends);
        this.threadsPerBackend = threadsPerBackend;
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
                RateLimitBackend backend = backends.get(t % backends.size());
                running.add(threads.submit(() -> {
                    go.await();
                    while (System.currentTimeMillis() < end) {
                        attempts.incrementAndGet();
                        if (backend.tryAcquire(name, spec, 1).allowed()) {
                            granted.incrementAndGet();
                        }
                        else {
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

    int attempts() {
        return attempts.get();
    }
}
