package io.github.redissonratelimit.interceptor;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import org.springframework.core.KotlinDetector;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.outcome.RateLimitListener;

/**
 * Limits methods that return a deferred reactive type ({@code Mono}, {@code Flux}, or any type Spring's
 * {@link ReactiveAdapterRegistry} adapts): the method is called at once to assemble its publisher, and
 * every subscription first takes the permits asynchronously. A {@code Flux} takes them once per
 * subscription, not per element. Kotlin {@code suspend} methods take the same path (with kotlinx-coroutines-reactor
 * on the class path, as Spring AOP needs for them). Only loaded when Reactor is on the class path.
 */
final class ReactiveRateLimiting {

    private static final boolean coroutinesReactorPresent = ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt",
            ReactiveRateLimiting.class.getClassLoader());

    private final ReactiveAdapterRegistry registry = ReactiveAdapterRegistry.getSharedInstance();
    private final RateLimitAspectSupport support;

    ReactiveRateLimiting(RateLimitAspectSupport support) {
        this.support = support;
    }

    boolean handles(Method method) {
        if (suspending(method)) {
            return true;
        }
        ReactiveAdapter adapter = registry.getAdapter(method.getReturnType());
        return adapter != null && adapter.getDescriptor().isDeferred();
    }

    /**
     * A Kotlin {@code suspend} method, with kotlinx-coroutines-reactor present: Spring AOP then invokes the target
     * as a {@code Mono} (what {@code proceed()} returns here) and awaits what the advice returns on the coroutine,
     * so the decision is limited like a {@code Mono} method's and holds no thread.
     */
    private static boolean suspending(Method method) {
        return coroutinesReactorPresent && KotlinDetector.isSuspendingFunction(method);
    }

    Object invoke(MethodInvocation invocation, Object target, Class<?> targetClass,
            List<RateLimitOperation> operations) throws Throwable {
        boolean suspending = suspending(invocation.getMethod());
        ReactiveAdapter adapter = registry.getAdapter(suspending ? Mono.class : invocation.getMethod().getReturnType());
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
        Mono<Acquisition> acquire = Mono.deferContextual(context -> {
            CompletionStage<Acquisition> pending = support.acquire(calls);
            return Mono.fromCompletionStage(pending)
                    // a subscriber gone before the permits came never runs the call: what it holds goes back
                    .doOnCancel(() -> pending.thenAccept(support::endCall))
                    .doOnNext(acquisition -> support.notifyListeners(acquisition,
                            context.<RateLimitListener>getOrDefault(RateLimitListener.class, null),
                            acquisition.settlesAfterTheCall() && !adapter.isMultiValue()));
        });
        Function<Acquisition, Publisher<?>> afterAcquire = acquisition -> {
            if (acquisition.error() != null) {
                return Mono.error(acquisition.error());
            }
            if (acquisition.rejection() == null) {
                Publisher<?> run = acquisition.chargedByOutcome()
                        ? settlingCharges(source, adapter.isMultiValue(), acquisition, target, targetClass, args) : source;
                if (!acquisition.holdsUntilTheEnd()) {
                    return run;
                }
                // held from the subscription to the end of the call: completed, failed or cancelled
                return adapter.isMultiValue() ? Flux.from(run).doFinally(signal -> support.endCall(acquisition))
                        : Mono.from(run).doFinally(signal -> support.endCall(acquisition));
            }
            try {
                Object fallback = support.rejected(acquisition, target, args);
                if (suspending && !(fallback instanceof Publisher<?>)) {
                    return Mono.justOrEmpty(fallback); // a fallback that does not suspend
                }
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

    /**
     * The call's publisher, ending as it did once its charges are settled: with its value (a single value, told to
     * the listeners as it then stands) or error.
     */
    private Publisher<?> settlingCharges(Publisher<?> source, boolean multiValue, Acquisition acquisition, Object target,
            Class<?> targetClass, Object[] args) {
        Function<Throwable, Mono<Void>> settle = ex -> Mono.fromCompletionStage(
                () -> support.settleCharges(acquisition, target, targetClass, args, null, ex));
        if (multiValue) {
            return Flux.from(source).concatWith(settle.apply(null).then(Mono.empty()))
                    .onErrorResume(ex -> settle.apply(ex).then(Mono.error(ex)));
        }
        return Mono.from(source)
                .flatMap(value -> Mono.fromCompletionStage(() -> support.settleCharges(acquisition, target,
                        targetClass, args, value, null)).then(settled(acquisition)).thenReturn(value))
                .switchIfEmpty(settle.apply(null).then(settled(acquisition)).then(Mono.empty()))
                .onErrorResume(ex -> settle.apply(ex).then(settled(acquisition)).then(Mono.error(ex)));
    }

    /** Tells the listeners, and the subscriber's, every limit of a single value's call once its charges are settled. */
    private Mono<Void> settled(Acquisition acquisition) {
        return Mono.deferContextual(context -> {
            support.notifySettled(acquisition, context.<RateLimitListener>getOrDefault(RateLimitListener.class, null));
            return Mono.empty();
        });
    }
}
