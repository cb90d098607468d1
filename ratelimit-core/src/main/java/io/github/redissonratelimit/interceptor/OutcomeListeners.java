package io.github.redissonratelimit.interceptor;

import java.util.List;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.util.function.SingletonSupplier;

import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.outcome.RateLimitOutcome;

/** Who is told the decisions of every call (metrics, HTTP headers); a listener that fails is logged, never fatal. */
final class OutcomeListeners {

    private static final Log logger = LogFactory.getLog(RateLimitInterceptor.class);

    private volatile Supplier<List<RateLimitListener>> listeners = List::of;

    void set(List<? extends RateLimitListener> listeners) {
        List<RateLimitListener> copy = List.copyOf(listeners);
        this.listeners = () -> copy;
    }

    /** The listeners obtained once, when first told something. */
    void set(Supplier<? extends List<? extends RateLimitListener>> listeners) {
        this.listeners = SingletonSupplier.of(() -> List.copyOf(listeners.get()));
    }

    /** Tells every listener, and {@code extraListener} if not null, the outcomes of a decided call. */
    void tell(List<RateLimitOutcome> outcomes, RateLimitListener extraListener) {
        if (outcomes.isEmpty()) {
            return;
        }
        List<RateLimitListener> all = listeners.get();
        for (int i = 0; i < all.size(); i++) { // no iterator per call
            tell(all.get(i), outcomes);
        }
        if (extraListener != null) {
            tell(extraListener, outcomes);
        }
    }

    /** Tells every listener, and {@code extraListener} if not null, every limit of a settled call. */
    void tellSettled(List<RateLimitOutcome> limits, List<RateLimitOperation> notAsked,
            RateLimitListener extraListener) {
        if (limits.isEmpty()) {
            return;
        }
        List<RateLimitListener> all = listeners.get();
        for (int i = 0; i < all.size(); i++) {
            tellSettled(all.get(i), limits, notAsked);
        }
        if (extraListener != null) {
            tellSettled(extraListener, limits, notAsked);
        }
    }

    private static void tellSettled(RateLimitListener listener, List<RateLimitOutcome> limits,
            List<RateLimitOperation> notAsked) {
        try {
            listener.onSettled(limits, notAsked);
        }
        catch (RuntimeException ex) {
            logger.warn("RateLimitListener " + listener + " failed; the call goes on", ex);
        }
    }

    private static void tell(RateLimitListener listener, List<RateLimitOutcome> outcomes) {
        try {
            listener.onOutcomes(outcomes);
        }
        catch (RuntimeException ex) {
            logger.warn("RateLimitListener " + listener + " failed; the call goes on", ex);
        }
    }
}
