package io.github.redissonratelimit.interceptor;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;

import io.github.redissonratelimit.log.LogSafe;
import io.github.redissonratelimit.limiter.Decision;

/**
 * Logs what shadow limits would have rejected: one INFO line per limiter (limit and key) per window, so that a
 * flood on one key writes one line, not one per call. Memory is bounded: at most {@value #MAX_ENTRIES} limiters
 * are remembered, each for one window (when more are rejected at once, the least recently logged may be logged
 * again within their window).
 */
final class ShadowRejectionLog {

    static final int MAX_ENTRIES = 10_000;

    private static final Log logger = LogFactory.getLog(ShadowRejectionLog.class);

    private final Cache<String, Duration> logged = Caffeine.newBuilder()
            .maximumSize(MAX_ENTRIES)
            .expireAfter(new ForOneWindow())
            .build();

    /** A shadow limit would have rejected {@code call}; the call runs. */
    void rejected(LimitCall call, Decision decision) {
        if (!logger.isInfoEnabled()) {
            return;
        }
        Duration window = call.operation().spec().interval();
        if (logged.asMap().putIfAbsent(call.limiterName(), window) != null) {
            return;
        }
        logger.info(LogSafe.text("Shadow limit '" + call.operation().name() + "' would have rejected key '"
                + call.key() + "' (" + call.permits() + " permit(s) of " + call.operation().spec() + ", free again in "
                + decision.retryAfter() + "); the call ran. Further rejections of this key are not logged for "
                + window));
    }

    private static final class ForOneWindow implements Expiry<String, Duration> {

        @Override
        public long expireAfterCreate(String key, Duration window, long currentTime) {
            return window.toNanos();
        }

        @Override
        public long expireAfterUpdate(String key, Duration window, long currentTime, long currentDuration) {
            return currentDuration;
        }

        @Override
        public long expireAfterRead(String key, Duration window, long currentTime, long currentDuration) {
            return currentDuration;
        }
    }
}
