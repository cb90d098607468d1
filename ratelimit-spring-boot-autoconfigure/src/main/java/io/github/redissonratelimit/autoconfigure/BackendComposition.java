package io.github.redissonratelimit.autoconfigure;

import java.util.List;

import io.github.redissonratelimit.limiter.RateLimitBackend;

/**
 * The one place the {@link RateLimitBackend} bean is composed: the Redisson backend, wrapped by every
 * {@link RateLimitBackendDecorator} in their order (the first wraps the Redisson backend, the last is outermost).
 * Remembers what it composed, so that the warm-up knows whether the backend in use wraps the Redisson backend
 * without looking through it.
 */
final class BackendComposition {

    private volatile RateLimitBackend redisson;
    private volatile RateLimitBackend composed;

    RateLimitBackend compose(RateLimitBackend redisson, List<RateLimitBackendDecorator> decorators) {
        RateLimitBackend backend = redisson;
        for (RateLimitBackendDecorator decorator : decorators) {
            backend = decorator.decorate(backend);
        }
        this.redisson = redisson;
        this.composed = backend;
        return backend;
    }

    /** The backend composed around {@code redisson}; null when none was (e.g. the application has its own). */
    RateLimitBackend around(RateLimitBackend redisson) {
        RateLimitBackend backend = composed;
        return backend != null && backend != redisson && this.redisson == redisson ? backend : null;
    }
}
