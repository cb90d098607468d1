package io.github.redissonratelimit.autoconfigure;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import org.springframework.util.ReflectionUtils;

import io.github.redissonratelimit.limiter.LocalRejectionCache;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.limiter.WaitingRateLimitBackend;
import io.github.redissonratelimit.resilience.ResilientRateLimitBackend;

/**
 * The backends a composed {@link RateLimitBackend} is made of, outermost first, found by following the
 * decorators' {@code getDelegate()} (the convention of this library's decorators, which a decorator of another
 * module or of the application may follow too). Used by the warm-up and the health indicator.
 */
public final class BackendChain {

    private static final int MAX_DEPTH = 16;

    private BackendChain() {
    }

    /** {@code backend}, then its delegate, then that one's, as far as they can be found. */
    public static List<RateLimitBackend> of(RateLimitBackend backend) {
        List<RateLimitBackend> chain = new ArrayList<>();
        RateLimitBackend current = backend;
        while (current != null && chain.size() < MAX_DEPTH) {
            chain.add(current);
            current = delegate(current);
        }
        return chain;
    }

    /** The first backend of the chain that is a {@code type}; null when there is none. */
    public static <T extends RateLimitBackend> T find(RateLimitBackend backend, Class<T> type) {
        for (RateLimitBackend link : of(backend)) {
            if (type.isInstance(link)) {
                return type.cast(link);
            }
        }
        return null;
    }

    private static RateLimitBackend delegate(RateLimitBackend backend) {
        if (backend instanceof LocalRejectionCache cache) {
            return cache.getDelegate();
        }
        if (backend instanceof WaitingRateLimitBackend waiting) {
            return waiting.getDelegate();
        }
        if (backend instanceof ResilientRateLimitBackend resilient) {
            return resilient.getDelegate();
        }
        // by reflection only for the decorators of others (in a native image, those need a reflection hint)
        Method getDelegate = ReflectionUtils.findMethod(backend.getClass(), "getDelegate");
        if (getDelegate == null || !Modifier.isPublic(getDelegate.getModifiers())
                || !RateLimitBackend.class.isAssignableFrom(getDelegate.getReturnType())) {
            return null;
        }
        try {
            return (RateLimitBackend) getDelegate.invoke(backend);
        }
        catch (ReflectiveOperationException | RuntimeException ex) {
            return null;
        }
    }
}
