package io.github.redissonratelimit.interceptor;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.util.ClassUtils;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitBackendUnavailableException.Reason;
import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.limiter.Completions;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.operation.RateLimitOperationSource;

/**
 * Applies the rate limits of a method before it runs, and proceeds, calls the fallback or throws
 * {@link RateLimitExceededException}. Every kind of method goes through the same asynchronous decision
 * path ({@link RateLimitAspectSupport}):
 *
 * <ul>
 * <li>blocking methods wait for it on the calling thread: one Redis round trip per call, however many limits it
 * has (they are decided together, in one script call where their keys may share one);</li>
 * <li>methods returning {@code CompletableFuture} or {@code CompletionStage} return at once, and run on the
 * {@linkplain #setAsyncExecutor async executor} once their permits are taken (never on a Redis event loop
 * thread);</li>
 * <li>methods returning {@code Mono}, {@code Flux} or another deferred reactive type (with Reactor on the
 * class path) are assembled at once and limited per subscription; Kotlin {@code suspend} methods the same way, on
 * their coroutine.</li>
 * </ul>
 *
 * <p>The backend is obtained at the first limited call, not when the interceptor is created: auto-proxy
 * creators create advice while post-processors are still being set up, and during AOT processing, where
 * creating the backend would connect to Redis at build time.
 */
public class RateLimitInterceptor extends RateLimitAspectSupport implements MethodInterceptor {

    private static final boolean reactorPresent = ClassUtils.isPresent("reactor.core.publisher.Mono",
            RateLimitInterceptor.class.getClassLoader());

    private final FutureRateLimiting futures = new FutureRateLimiting(this);
    private final ReactiveRateLimiting reactive = reactorPresent ? new ReactiveRateLimiting(this) : null;
    /** How each limited method returns, found once: asking the reactive adapter registry on every call costs more than the rest of the interceptor. */
    private final Map<Method, Returns> returns = new ConcurrentHashMap<>();
    private final RateLimitDecider decider = new RateLimitDecider(this);

    /** @param backend decides, and names the limiter of each key ({@link RateLimitBackend#limiterName}) */
    public RateLimitInterceptor(RateLimitOperationSource operationSource, RateLimitBackend backend) {
        this(operationSource, () -> backend);
    }

    /** @param backend asked once, at the first limited call */
    public RateLimitInterceptor(RateLimitOperationSource operationSource,
            Supplier<? extends RateLimitBackend> backend) {
        super(operationSource, backend);
    }

    /**
     * Where a {@code CompletableFuture} method (or its fallback) runs once its permits are taken: not on
     * a Redis event loop thread, since the method may block before it returns. By default
     * {@code CompletableFuture}'s own default async executor (the common pool, or a thread per task when
     * the common pool has fewer than two threads).
     */
    public void setAsyncExecutor(Executor asyncExecutor) {
        futures.setExecutor(() -> asyncExecutor);
    }

    /** Like {@link #setAsyncExecutor(Executor)}, the executor obtained once, at the first future method's call. */
    public void setAsyncExecutor(Supplier<? extends Executor> asyncExecutor) {
        futures.setExecutor(asyncExecutor);
    }

    /**
     * Decides limits declared elsewhere than on a method (URL routes, a gateway's requests) on this interceptor's
     * path: the same overrides, decision stack, refunds and listeners.
     */
    public RateLimitDecider decider() {
        return decider;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target == null ? null : AopProxyUtils.ultimateTargetClass(target);
        List<RateLimitOperation> operations = operations(invocation.getMethod(), targetClass);
        if (operations.isEmpty()) {
            return invocation.proceed();
        }
        Returns kind = returnsOf(invocation.getMethod());
        if (kind == Returns.FUTURE) {
            return futures.invoke(invocation, target, targetClass, operations);
        }
        if (kind == Returns.DEFERRED) {
            return reactive.invoke(invocation, target, targetClass, operations);
        }
        Object[] args = invocation.getArguments();
        List<LimitCall> calls = calls(operations, target, targetClass, args);
        if (calls.isEmpty()) {
            return invocation.proceed();
        }
        Acquisition acquisition = await(acquire(calls), calls);
        boolean charging = acquisition.settlesAfterTheCall();
        notifyListeners(acquisition, null, charging);
        if (acquisition.error() != null) {
            throw acquisition.error();
        }
        if (acquisition.rejection() != null) {
            return rejected(acquisition, target, args);
        }
        if (!acquisition.holdsUntilTheEnd()) {
            return charging ? proceedCharging(invocation, acquisition, target, targetClass, args) : invocation.proceed();
        }
        try {
            return charging ? proceedCharging(invocation, acquisition, target, targetClass, args) : invocation.proceed();
        }
        finally {
            endCall(acquisition);
        }
    }

    /**
     * Runs a call whose limits charge by outcome, then settles what it is charged before returning, so that the
     * caller's next call finds the permits given back, and tells the listeners every limit as it then stands.
     */
    private Object proceedCharging(MethodInvocation invocation, Acquisition acquisition, Object target,
            Class<?> targetClass, Object[] args) throws Throwable {
        Object result;
        try {
            result = invocation.proceed();
        }
        catch (Throwable ex) {
            settleCharges(acquisition, target, targetClass, args, null, ex).join();
            notifySettled(acquisition, null);
            throw ex;
        }
        settleCharges(acquisition, target, targetClass, args, result, null).join();
        notifySettled(acquisition, null);
        return result;
    }

    private Returns returnsOf(Method method) {
        Returns kind = returns.get(method);
        if (kind == null) {
            Class<?> returnType = method.getReturnType();
            kind = returnType == CompletableFuture.class || returnType == CompletionStage.class ? Returns.FUTURE
                    : reactive != null && reactive.handles(method) ? Returns.DEFERRED : Returns.VALUE;
            returns.put(method, kind);
        }
        return kind;
    }

    /** What a limited method returns, as far as the interceptor cares. */
    private enum Returns {
        /** A value (or nothing): decided on the calling thread before the method runs. */
        VALUE,
        /** A {@code CompletableFuture} or {@code CompletionStage}. */
        FUTURE,
        /** A deferred reactive type, or a Kotlin {@code suspend} method: limited per subscription. */
        DEFERRED
    }

    /**
     * Waits for the decisions on the calling thread. An interrupted caller stops waiting and gets
     * {@link RateLimitBackendUnavailableException} ({@link Reason#INTERRUPTED}), whatever the limits' outage
     * policy: the thread was asked to stop, not to run the method.
     */
    private static Acquisition await(CompletionStage<Acquisition> decisions, List<LimitCall> calls) throws Throwable {
        CompletableFuture<Acquisition> pending = decisions.toCompletableFuture();
        try {
            return pending.get();
        }
        catch (ExecutionException ex) {
            throw Completions.unwrap(ex);
        }
        catch (InterruptedException ex) {
            pending.cancel(false);
            Thread.currentThread().interrupt();
            throw new RateLimitBackendUnavailableException(calls.get(0).limiterName(), Reason.INTERRUPTED,
                    Duration.ofSeconds(1), "interrupted while waiting for the decision", ex);
        }
    }
}
