package io.github.redissonratelimit.interceptor;

import java.util.List;
import java.util.function.Function;

import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import reactor.core.publisher.Mono;

import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.outcome.RateLimitListener;

/**
 * Limits methods that return a deferred reactive type ({@code Mono}, {@code Flux}, or any type Spring's
 * {@link ReactiveAdapterRegistry} adapts): the method is called at once to assemble its publisher, and
 * every subscription first takes the permits asynchronously. A {@code Flux} takes them once per
 * subscription, not per element. Only loaded when Reactor is on the class path.
 */
final class ReactiveRateLimiting {

    private final ReactiveAdapterRegistry registry = ReactiveAdapterRegistry.getSharedInstance();
    private final RateLimitAspectSupport support;

    ReactiveRateLimiting(RateLimitAspectSupport support) {
        this.support = support;
    }

    boolean handles(Class<?> returnType) {
        ReactiveAdapter adapter = registry.getAdapter(returnType);
        return adapter != null && adapter.getDescriptor().isDeferred();
    }

    Object invoke(MethodInvocation invocation, Object target, Class<?> targetClass,
            List<RateLimitOperation> operations) throws Throwable {
        ReactiveAdapter adapter = registry.getAdapter(invocation.getMethod().getReturnType());
        Object[] args = invocation.getArguments();
        List<LimitCall> calls;
        try {
            calls = support.calls(operations, target, targetClass, args);
        }
        catch (RuntimeException ex) {
            return adapter.fromPublisher(Mono.error(ex));
        }
        if (calls.isEmpty()) {
            return invocation.proceed();
        }
        Object assembled = invocation.proceed();
        Publisher<?> source = assembled == null ? Mono.empty() : adapter.toPublisher(assembled);
        Mono<Acquisition> acquire = Mono.deferContextual(context -> Mono.fromCompletionStage(support.acquire(calls))
                .doOnNext(acquisition -> support.notifyListeners(acquisition,
                        context.<RateLimitListener>getOrDefault(RateLimitListener.class, null))));
        Function<Acquisition, Publisher<?>> afterAcquire = acquisition -> {
            if (acquisition.error() != null) {
                return Mono.error(acquisition.error());
            }
            if (acquisition.rejection() == null) {
                return source;
            }
            try {
                Object fallback = support.rejected(acquisition, target, args);
                return fallback == null ? Mono.empty() : adapter.toPublisher(fallback);
            }
            catch (Throwable ex) {
                return Mono.error(ex);
            }
        };
        Publisher<?> limited = adapter.isMultiValue() ? acquire.flatMapMany(afterAcquire)
                : acquire.flatMap(acquisition -> Mono.from(afterAcquire.apply(acquisition)));
        return adapter.fromPublisher(limited);
    }
}
