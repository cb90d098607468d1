package io.github.redissonratelimit.interceptor;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.interceptor.ExposeInvocationInterceptor;
import org.springframework.util.ClassUtils;

import io.github.redissonratelimit.LogSafe;
import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.key.LimiterNaming;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.operation.FallbackMethod;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.operation.RateLimitOperationSource;
import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.outcome.RateLimitOutcome;

/**
 * Applies the rate limits of a method before it runs: evaluates conditions and keys, takes the permits
 * of every limit in turn and either proceeds, calls the fallback or throws
 * {@link RateLimitExceededException}. When a limit rejects the call, the permits the limits before it
 * granted are given back. A limit whose backend gives no decision
 * ({@link RateLimitBackendUnavailableException}) is passed or refuses the call, as its
 * {@code onBackendError} policy says.
 *
 * <ul>
 * <li>Blocking methods decide on the calling thread: one Redis round trip per limit in steady state.</li>
 * <li>Methods returning {@code CompletableFuture} or {@code CompletionStage} return at once; the
 * permits are taken asynchronously and the method then runs on the {@linkplain #setAsyncExecutor async
 * executor} (never on a Redis event loop thread).</li>
 * <li>Methods returning {@code Mono}, {@code Flux} or another deferred reactive type (with Reactor on the
 * class path) are assembled at once and limited per subscription, without blocking.</li>
 * </ul>
 */
public class RateLimitInterceptor implements MethodInterceptor {

    private static final Log logger = LogFactory.getLog(RateLimitInterceptor.class);

    private static final boolean reactorPresent = ClassUtils.isPresent("reactor.core.publisher.Mono",
            RateLimitInterceptor.class.getClassLoader());

    private final RateLimitOperationSource operationSource;
    private final LimiterNaming naming;
    private final RateLimitBackend backend;
    private final ReactiveRateLimiting reactive;
    private volatile List<RateLimitListener> listeners = List.of();
    private volatile Executor asyncExecutor;
    private volatile BackendErrorPolicy defaultBackendErrorPolicy = BackendErrorPolicy.ALLOW;

    public RateLimitInterceptor(RateLimitOperationSource operationSource, LimiterNaming naming,
            RateLimitBackend backend) {
        this.operationSource = operationSource;
        this.naming = naming;
        this.backend = backend;
        this.reactive = reactorPresent ? new ReactiveRateLimiting(this) : null;
    }

    /** Who is told the decisions of every call (metrics, HTTP headers). */
    public void setListeners(List<? extends RateLimitListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    /**
     * Where a {@code CompletableFuture} method (or its fallback) runs once its permits are taken: not on
     * a Redis event loop thread, since the method may block before it returns. By default
     * {@code CompletableFuture}'s own default async executor (the common pool, or a thread per task when
     * the common pool has fewer than two threads).
     */
    public void setAsyncExecutor(Executor asyncExecutor) {
        this.asyncExecutor = Objects.requireNonNull(asyncExecutor, "asyncExecutor");
    }

    /**
     * What limits whose {@code onBackendError} is {@code DEFAULT} do when the backend gives no decision
     * (it throws {@link RateLimitBackendUnavailableException}): {@code ALLOW} (the default) runs the
     * call, {@code DENY} rethrows the exception.
     */
    public void setDefaultBackendErrorPolicy(BackendErrorPolicy policy) {
        if (policy == null || policy == BackendErrorPolicy.DEFAULT) {
            throw new IllegalArgumentException("The default backend error policy must be ALLOW or DENY but was " + policy);
        }
        this.defaultBackendErrorPolicy = policy;
    }

    public BackendErrorPolicy getDefaultBackendErrorPolicy() {
        return defaultBackendErrorPolicy;
    }

    private boolean deniesWithoutBackend(RateLimitOperation operation) {
        BackendErrorPolicy policy = operation.backendErrorPolicy();
        return (policy == BackendErrorPolicy.DEFAULT ? defaultBackendErrorPolicy : policy) == BackendErrorPolicy.DENY;
    }

    /** Whether a failed decision ends the call; otherwise the limit is passed as if it allowed the call. */
    private boolean endsTheCall(LimitCall call, Throwable error) {
        return !(error instanceof RateLimitBackendUnavailableException) || deniesWithoutBackend(call.operation());
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target == null ? null : AopProxyUtils.ultimateTargetClass(target);
        List<RateLimitOperation> operations = operationSource.getOperations(invocation.getMethod(), targetClass);
        if (operations.isEmpty()) {
            return invocation.proceed();
        }
        Class<?> returnType = invocation.getMethod().getReturnType();
        if (returnType == CompletableFuture.class || returnType == CompletionStage.class) {
            return invokeFuture(invocation, target, targetClass, operations);
        }
        if (reactive != null && reactive.handles(returnType)) {
            return reactive.invoke(invocation, target, targetClass, operations);
        }
        return invokeBlocking(invocation, target, targetClass, operations);
    }

    private Object invokeBlocking(MethodInvocation invocation, Object target, Class<?> targetClass,
            List<RateLimitOperation> operations) throws Throwable {
        Object[] args = invocation.getArguments();
        List<LimitCall> calls = calls(operations, target, targetClass, args);
        if (calls.isEmpty()) {
            return invocation.proceed();
        }
        Acquisition acquisition = new Acquisition(calls);
        for (LimitCall call : calls) {
            long start = System.nanoTime();
            Decision decision;
            try {
                decision = acquire(call);
            }
            catch (RuntimeException ex) {
                if (!endsTheCall(call, ex)) {
                    acquisition.passed(call, ex, start);
                    continue;
                }
                acquisition.failed(call, ex, start);
                break;
            }
            if (!acquisition.decided(call, decision, start)) {
                break;
            }
        }
        for (LimitCall grant : acquisition.grantsToRefund()) {
            try {
                backend.release(grant.limiterName(), grant.operation().spec(), grant.operation().permits());
                acquisition.refunded(grant);
            }
            catch (RuntimeException ex) {
                refundFailed(grant, ex, acquisition);
            }
        }
        notifyListeners(acquisition.outcomes(), null);
        if (acquisition.error() != null) {
            throw acquisition.error();
        }
        if (acquisition.rejection() != null) {
            return rejected(acquisition, target, args);
        }
        return invocation.proceed();
    }

    private Decision acquire(LimitCall call) {
        RateLimitOperation operation = call.operation();
        return operation.waitTimeout().isZero()
                ? backend.tryAcquire(call.limiterName(), operation.spec(), operation.permits())
                : backend.tryAcquire(call.limiterName(), operation.spec(), operation.permits(), operation.waitTimeout());
    }

    private Object invokeFuture(MethodInvocation invocation, Object target, Class<?> targetClass,
            List<RateLimitOperation> operations) throws Throwable {
        Object[] args = invocation.getArguments();
        List<LimitCall> calls;
        try {
            calls = calls(operations, target, targetClass, args);
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        if (calls.isEmpty()) {
            return invocation.proceed();
        }
        Function<Acquisition, CompletionStage<Object>> afterAcquire = acquisition -> {
            Object result;
            try {
                if (acquisition.error() != null) {
                    throw acquisition.error();
                }
                // the chain after this advice may rely on the current invocation being exposed (AspectJ advice)
                result = acquisition.rejection() != null ? rejected(acquisition, target, args)
                        : ExposeInvocationInterceptor.INSTANCE.invoke(invocation);
            }
            catch (Throwable ex) {
                return CompletableFuture.failedFuture(ex);
            }
            @SuppressWarnings("unchecked")
            CompletionStage<Object> stage = (CompletionStage<Object>) result;
            return stage == null ? CompletableFuture.completedFuture(null) : stage;
        };
        CompletableFuture<Acquisition> acquired = acquireAsync(calls, null).toCompletableFuture();
        Executor executor = asyncExecutor;
        return executor == null ? acquired.thenComposeAsync(afterAcquire)
                : acquired.thenComposeAsync(afterAcquire, executor);
    }

    /** The limits that apply to one call, with their keys; conditions and keys are evaluated once here. */
    List<LimitCall> calls(List<RateLimitOperation> operations, Object target, Class<?> targetClass, Object[] args) {
        List<LimitCall> calls = new ArrayList<>(operations.size());
        for (RateLimitOperation operation : operations) {
            if (operation.appliesTo(target, targetClass, args)) {
                String key = operation.resolveKey(target, targetClass, args);
                calls.add(new LimitCall(operation, key, naming.limiterName(key)));
            }
        }
        return calls;
    }

    /**
     * Decides every limit of a call without blocking, gives back the grants of a call that did not pass
     * and tells the listeners (and {@code extraListener}, if not null).
     */
    CompletionStage<Acquisition> acquireAsync(List<LimitCall> calls, RateLimitListener extraListener) {
        Acquisition acquisition = new Acquisition(calls);
        return step(acquisition, 0).thenCompose(this::refundAsync).thenApply(done -> {
            notifyListeners(done.outcomes(), extraListener);
            return done;
        });
    }

    private CompletionStage<Acquisition> step(Acquisition acquisition, int index) {
        if (index == acquisition.calls().size()) {
            return CompletableFuture.completedFuture(acquisition);
        }
        LimitCall call = acquisition.calls().get(index);
        RateLimitOperation operation = call.operation();
        long start = System.nanoTime();
        CompletionStage<Decision> decision;
        try {
            decision = operation.waitTimeout().isZero()
                    ? backend.tryAcquireAsync(call.limiterName(), operation.spec(), operation.permits())
                    : backend.tryAcquireAsync(call.limiterName(), operation.spec(), operation.permits(),
                            operation.waitTimeout());
        }
        catch (RuntimeException ex) {
            decision = CompletableFuture.failedFuture(ex);
        }
        return decision.handle((result, ex) -> {
            if (ex != null) {
                Throwable error = unwrap(ex);
                if (!endsTheCall(call, error)) {
                    acquisition.passed(call, error, start);
                    return step(acquisition, index + 1);
                }
                acquisition.failed(call, error, start);
                return CompletableFuture.completedFuture(acquisition);
            }
            return acquisition.decided(call, result, start) ? step(acquisition, index + 1)
                    : CompletableFuture.completedFuture(acquisition);
        }).thenCompose(Function.identity());
    }

    private CompletionStage<Acquisition> refundAsync(Acquisition acquisition) {
        List<LimitCall> grants = acquisition.grantsToRefund();
        if (grants.isEmpty()) {
            return CompletableFuture.completedFuture(acquisition);
        }
        CompletableFuture<?>[] refunds = new CompletableFuture<?>[grants.size()];
        for (int i = 0; i < refunds.length; i++) {
            LimitCall grant = grants.get(i);
            CompletableFuture<Void> refund;
            try {
                refund = backend.releaseAsync(grant.limiterName(), grant.operation().spec(), grant.operation().permits())
                        .toCompletableFuture();
            }
            catch (RuntimeException ex) {
                refund = CompletableFuture.failedFuture(ex);
            }
            refunds[i] = refund.handle((ignored, ex) -> {
                if (ex != null) {
                    refundFailed(grant, unwrap(ex), acquisition);
                }
                else {
                    acquisition.refunded(grant);
                }
                return null;
            });
        }
        return CompletableFuture.allOf(refunds).thenApply(done -> acquisition);
    }

    private static void refundFailed(LimitCall grant, Throwable ex, Acquisition acquisition) {
        if (acquisition.error() != null) {
            acquisition.error().addSuppressed(ex);
        }
        logger.warn("Could not give back " + grant.operation().permits() + " permit(s) of "
                + LogSafe.text(grant.limiterName()) + " after the call was "
                + (acquisition.error() != null ? "failed" : "rejected") + ": they return"
                + " when the grant leaves the window", ex);
    }

    /** The fallback's result for a rejected call, or the rejection thrown. */
    Object rejected(Acquisition acquisition, Object target, Object[] args) throws Throwable {
        FallbackMethod fallback = acquisition.rejectedBy().operation().fallback();
        if (fallback == null) {
            throw acquisition.rejection();
        }
        if (logger.isDebugEnabled()) {
            logger.debug(LogSafe.text("Calling fallback " + fallback + ": " + acquisition.rejection().describe()));
        }
        return fallback.invoke(target, args, acquisition.rejection());
    }

    private void notifyListeners(List<RateLimitOutcome> outcomes, RateLimitListener extraListener) {
        if (outcomes.isEmpty()) {
            return;
        }
        for (RateLimitListener listener : listeners) {
            notifyListener(listener, outcomes);
        }
        if (extraListener != null) {
            notifyListener(extraListener, outcomes);
        }
    }

    private static void notifyListener(RateLimitListener listener, List<RateLimitOutcome> outcomes) {
        try {
            listener.onOutcomes(outcomes);
        }
        catch (RuntimeException ex) {
            logger.warn("RateLimitListener " + listener + " failed; the call goes on", ex);
        }
    }

    private static Throwable unwrap(Throwable ex) {
        return ex instanceof CompletionException && ex.getCause() != null ? ex.getCause() : ex;
    }
}
