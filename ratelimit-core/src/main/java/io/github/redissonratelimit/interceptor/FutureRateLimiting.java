package io.github.redissonratelimit.interceptor;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.interceptor.ExposeInvocationInterceptor;
import org.springframework.util.function.SingletonSupplier;

import io.github.redissonratelimit.limiter.Completions;
import io.github.redissonratelimit.operation.RateLimitOperation;

/**
 * Limits methods that return {@code CompletableFuture} or {@code CompletionStage}: the method returns at
 * once; once the permits are taken, the listeners are told and the method (or its fallback) runs on the
 * executor, never on the Redis event loop thread that completed the decision.
 */
final class FutureRateLimiting {

    private final RateLimitAspectSupport support;
    private volatile Supplier<? extends Executor> executor = () -> null;

    FutureRateLimiting(RateLimitAspectSupport support) {
        this.support = support;
    }

    void setExecutor(Supplier<? extends Executor> executor) {
        this.executor = SingletonSupplier.ofNullable(executor::get);
    }

    Object invoke(MethodInvocation invocation, Object target, Class<?> targetClass,
            List<RateLimitOperation> operations) throws Throwable {
        Object[] args = invocation.getArguments();
        List<LimitCall> calls;
        try {
            calls = support.calls(operations, target, targetClass, args);
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        if (calls.isEmpty()) {
            return invocation.proceed();
        }
        AtomicBoolean ran = new AtomicBoolean();
        Function<Acquisition, CompletionStage<Object>> afterAcquire = acquisition -> {
            ran.set(true);
            Object result;
            try {
                support.notifyListeners(acquisition, null, acquisition.settlesAfterTheCall());
                if (acquisition.error() != null) {
                    throw acquisition.error();
                }
                // the chain after this advice may rely on the current invocation being exposed (AspectJ advice)
                result = acquisition.rejection() != null ? support.rejected(acquisition, target, args)
                        : ExposeInvocationInterceptor.INSTANCE.invoke(invocation);
            }
            catch (Throwable ex) {
                support.endCall(acquisition);
                return CompletableFuture.failedFuture(ex);
            }
            @SuppressWarnings("unchecked")
            CompletionStage<Object> stage = (CompletionStage<Object>) result;
            stage = stage == null ? CompletableFuture.completedFuture(null) : stage;
            if (acquisition.holdsUntilTheEnd()) {
                // held from the start of the call to the end of its own stage, whatever becomes of the caller's
                stage.whenComplete((value, ex) -> support.endCall(acquisition));
            }
            return acquisition.rejection() == null && acquisition.chargedByOutcome()
                    ? settlingCharges(stage, acquisition, target, targetClass, args) : stage;
        };
        CompletableFuture<Acquisition> acquired = support.acquire(calls).toCompletableFuture();
        Executor runOn = executor.get();
        CompletableFuture<Object> result = runOn == null ? acquired.thenComposeAsync(afterAcquire)
                : acquired.thenComposeAsync(afterAcquire, runOn);
        result.whenComplete((value, ex) -> {
            if (result.isCancelled()) {
                // a caller who cancels the call before its permits are taken ends their wait; one who cancels it
                // before it ran gives back what it holds until its end, since it never runs
                if (waits(calls)) {
                    acquired.cancel(false);
                }
                acquired.thenAccept(acquisition -> {
                    if (!ran.get()) {
                        support.endCall(acquisition);
                    }
                });
            }
        });
        return result;
    }

    private static boolean waits(List<LimitCall> calls) {
        for (LimitCall call : calls) {
            if (call.waits()) {
                return true;
            }
        }
        return false;
    }

    /** The call's stage, completing as it did once the charges are settled. */
    private CompletionStage<Object> settlingCharges(CompletionStage<Object> stage, Acquisition acquisition,
            Object target, Class<?> targetClass, Object[] args) {
        return stage.handle((value, ex) -> {
            Throwable error = ex == null ? null : Completions.unwrap(ex);
            return support.settleCharges(acquisition, target, targetClass, args, value, error)
                    .thenRun(() -> support.notifySettled(acquisition, null))
                    .thenCompose(settled -> error == null ? CompletableFuture.completedFuture(value)
                            : CompletableFuture.<Object>failedFuture(error));
        }).thenCompose(Function.identity());
    }
}
