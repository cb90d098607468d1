package io.github.redissonratelimit.local;

import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * The {@link LocalWindow}s of {@link LocalFallback}, at most {@code maxLimiters} of them: those unused for an interval
 * go first, then any.
 */
final class LocalWindows {

    private final ConcurrentHashMap<String, LocalWindow> windows = new ConcurrentHashMap<>();
    private final long maxLimiters;
    private final AtomicBoolean evicting = new AtomicBoolean();

    LocalWindows(long maxLimiters) {
        this.maxLimiters = maxLimiters;
    }

    /** The limiter's window, or null when it has none. */
    LocalWindow get(String limiterName) {
        return windows.get(limiterName);
    }

    /** Runs on every grant: a lookup that allocates nothing when the limiter is known. */
    LocalWindow window(String limiterName, LimitSpec spec, long now) {
        LocalWindow window = windows.get(limiterName);
        if (window == null) {
            window = windows.computeIfAbsent(limiterName, name -> new LocalWindow(spec.interval().toNanos()));
            if (windows.size() > maxLimiters) {
                evict(now);
            }
        }
        window.used(now);
        return window;
    }

    void forget(Predicate<String> limiterNames) {
        windows.keySet().removeIf(limiterNames);
    }

    /**
     * Drops the windows unused for longer than their interval (they hold no grant any more), then, if that was not
     * enough, any until a tenth of the bound is free: each sweep frees room for many limiters, so its cost spreads
     * over them. Concurrent callers do not wait for it.
     */
    private void evict(long now) {
        if (!evicting.compareAndSet(false, true)) {
            return;
        }
        try {
            windows.values().removeIf(window -> window.unusedFor(now));
            long target = maxLimiters - Math.max(1, maxLimiters / 10);
            Iterator<String> names = windows.keySet().iterator();
            while (windows.size() > target && names.hasNext()) {
                names.next();
                names.remove();
            }
        }
        finally {
            evicting.set(false);
        }
    }
}
