package io.github.redissonratelimit.interceptor;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.util.function.SingletonSupplier;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.log.LogSafe;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.operation.FallbackMethod;
import io.github.redissonratelimit.operation.LimitOverrides;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.operation.RateLimitOperationSource;
import io.github.redissonratelimit.outcome.RateLimitListener;

/**
 * The one decision path of every limited call, whatever its method returns: evaluates conditions and keys,
 * takes the permits of each limit in turn without blocking, gives back the grants of a call that did not
 * pass, and tells the listeners. A limit in shadow mode is decided and reported but never ends the call. A limit
 * whose backend gives no decision
 * ({@link RateLimitBackendUnavailableException}) is passed or ends the call, as its {@code onBackendError}
 * policy says. {@link RateLimitInterceptor} waits for it (blocking methods) or chains on it (future and
 * reactive methods).
 */
abstract class RateLimitAspectSupport {

    private static final Log logger = LogFactory.getLog(RateLimitInterceptor.class);

    private final RateLimitOperationSource operationSource;
    private final SingletonSupplier<RateLimitBackend> stack;
    private final BackendRequests requests;
    private volatile BackendErrorPolicy defaultBackendErrorPolicy = BackendErrorPolicy.LOCAL;
    private final OutcomeListeners listeners = new OutcomeListeners();
    private final Refunds refunds;
    private final Charges charges;
    private final LimitAnswers answers;
    private volatile LimitOverrides overrides = new LimitOverrides();
    /** The limiter names of the keys that are the same for every call of their limit: no more than limits declared. */
    private final Map<String, String> constantKeyNames = new ConcurrentHashMap<>();
    /** The lease of the last leased call, a value: the limits of an application have few lease periods. */
    private volatile AcquireRequest.Lease lastLease;

    RateLimitAspectSupport(RateLimitOperationSource operationSource, Supplier<? extends RateLimitBackend> backend) {
        this.operationSource = operationSource;
        this.stack = SingletonSupplier.of(backend::get);
        this.requests = new BackendRequests(stack);
        this.refunds = new Refunds(stack);
        this.charges = new Charges(refunds);
        this.answers = new LimitAnswers(refunds, () -> defaultBackendErrorPolicy);
    }

    /** Who is told the decisions of every call (metrics, HTTP headers). */
    public void setListeners(List<? extends RateLimitListener> listeners) {
        this.listeners.set(listeners);
    }

    /**
     * Like {@link #setListeners(List)}, the listeners obtained once, at the first decision: listener beans
     * (meter registries, web support) need not exist when the interceptor is created.
     */
    public void setListeners(Supplier<? extends List<? extends RateLimitListener>> listeners) {
        this.listeners.set(listeners);
    }

    /**
     * What limits whose {@code onBackendError} is {@code DEFAULT} do when the backend gives no decision
     * (it throws {@link RateLimitBackendUnavailableException}): {@code LOCAL} (the default) limits the call in
     * memory, when the backend is wrapped by the local outage policy
     * ({@link io.github.redissonratelimit.local.LocalOutagePolicy}; otherwise such a limit passes as under
     * {@code ALLOW}), {@code ALLOW} runs it, {@code DENY} rethrows the exception.
     */
    public void setDefaultBackendErrorPolicy(BackendErrorPolicy policy) {
        if (policy == null || policy == BackendErrorPolicy.DEFAULT) {
            throw new IllegalArgumentException("The default backend error policy must be LOCAL, ALLOW or DENY but was "
                    + policy);
        }
        this.defaultBackendErrorPolicy = policy;
    }

    public BackendErrorPolicy getDefaultBackendErrorPolicy() {
        return defaultBackendErrorPolicy;
    }

    /** The limits changed at runtime ({@code RateLimiters.override}), applied to the operations of every call. */
    public void setOverrides(LimitOverrides overrides) {
        this.overrides = Objects.requireNonNull(overrides, "overrides");
    }

    List<RateLimitOperation> operations(Method method, Class<?> targetClass) {
        return overrides.apply(operationSource.getOperations(method, targetClass));
    }

    /**
     * The limits that apply to one call, with their keys and permits; conditions, tiers, costs and keys are
     * evaluated once here. A limit whose cost is 0 for the call takes nothing and is left out, like one whose
     * condition is false.
     */
    List<LimitCall> calls(List<RateLimitOperation> operations, Object target, Class<?> targetClass, Object[] args) {
        if (operations.size() == 1) {
            // the common case, without a list to grow
            LimitCall call = limitCall(operations.get(0), target, targetClass, args);
            return call == null ? List.of() : List.of(call);
        }
        List<LimitCall> calls = new ArrayList<>(operations.size());
        for (RateLimitOperation declared : operations) {
            LimitCall call = limitCall(declared, target, targetClass, args);
            if (call != null) {
                calls.add(call);
            }
        }
        return calls;
    }

    /** The limit's part of one call, or null when it takes nothing (its condition is false or its cost 0). */
    private LimitCall limitCall(RateLimitOperation declared, Object target, Class<?> targetClass, Object[] args) {
        if (!declared.appliesTo(target, targetClass, args)) {
            return null;
        }
        RateLimitOperation operation = declared.forCall(target, targetClass, args);
        long permits = operation.permitsFor(target, targetClass, args);
        if (permits <= 0) {
            return null;
        }
        String key = operation.resolveKey(target, targetClass, args);
        return limitCall(operation, key, operation.constantKey() != null ? constantKeyName(key)
                : stack.obtain().limiterName(key), permits);
    }

    /** A key the same for every call of its limit (a global limit) is named once, not once per call. */
    private String constantKeyName(String key) {
        String name = constantKeyNames.get(key);
        if (name == null) {
            name = stack.obtain().limiterName(key);
            constantKeyNames.put(key, name);
        }
        return name;
    }

    /** One limit of one call: the operation with the call's key and permits, and the request the stack is asked. */
    LimitCall limitCall(RateLimitOperation operation, String key, long permits) {
        return limitCall(operation, key, stack.obtain().limiterName(key), permits);
    }

    private LimitCall limitCall(RateLimitOperation operation, String key, String limiterName, long permits) {
        return new LimitCall(operation, key, new AcquireRequest(limiterName, operation.spec(), permits,
                answers.policyOf(operation), operation.shadow(), operation.waitTimeout(), null, leaseOf(operation)));
    }

    /** The lease a call of {@code operation} asks for, or null: the last one made when it has the same period. */
    private AcquireRequest.Lease leaseOf(RateLimitOperation operation) {
        Duration period = operation.lease();
        if (period.isZero()) {
            return null;
        }
        AcquireRequest.Lease last = lastLease;
        if (last == null || !last.period().equals(period)) {
            last = new AcquireRequest.Lease(period, 0);
            lastLease = last;
        }
        return last;
    }

    /** The call ended (any way): the grants it held until then go back, without the caller waiting. */
    void endCall(Acquisition acquisition) {
        refunds.endOfCall(acquisition);
    }

    /** Gives back the grants of calls that passed and were not charged. */
    Refunds refunds() {
        return refunds;
    }

    /** {@code operations} with the limits changed at runtime applied. */
    List<RateLimitOperation> overridden(List<RateLimitOperation> operations) {
        return overrides.apply(operations);
    }

    /**
     * Decides every limit of a call and gives back the grants of a call that did not pass. The stage completes
     * with the acquisition (its errors recorded in it); listeners are not told yet (see {@link #notifyListeners}),
     * so that the caller tells them on its own thread.
     *
     * <p>The limits are asked at once, not one after the other, as one batch of the backend
     * ({@link io.github.redissonratelimit.limiter.RateLimitBackend#acquireAll}), so that the Redis backend decides
     * them in one script call and a call pays one round trip however many limits it has. Their answers are then read
     * in declaration order, which gives the same outcome as asking in turn: the first limit that rejects (or whose
     * failure ends the call) decides, the limits after it are not reported, and whatever they granted is given back.
     * A limit whose answer is already known when it is asked (a rejection from memory) stops the asking there, as
     * the sequential order would; if that answer lets the call go on after all, the rest are asked then.
     */
    CompletionStage<Acquisition> acquire(List<LimitCall> calls) {
        Acquisition acquisition = new Acquisition(calls);
        int count = calls.size();
        @SuppressWarnings("unchecked")
        CompletableFuture<Decision>[] decisions = new CompletableFuture[count];
        long[] starts = new long[count];
        int asked = 0;
        boolean pending = false;
        if (count == 1) {
            // one limit has nothing to send with: no batch, so that single-limit calls pay nothing for it
            starts[0] = System.nanoTime();
            decisions[asked++] = requests.decide(calls.get(0).request());
            pending = !decisions[0].isDone();
        }
        while (asked < count) {
            long start = System.nanoTime();
            for (CompletionStage<Decision> stage : requests.decideAll(calls, asked)) {
                starts[asked] = start;
                decisions[asked] = stage.toCompletableFuture();
                pending |= !decisions[asked++].isDone();
            }
            CompletableFuture<Decision> last = decisions[asked - 1];
            if (asked < count && last.isDone() && !answers.goesOn(calls.get(asked - 1), last)) {
                break;
            }
        }
        if (!pending) {
            return answers.settle(acquisition, decisions, starts, asked);
        }
        int settled = asked;
        CompletableFuture<?> all = settled == 1 ? decisions[0] : CompletableFuture.allOf(Arrays.copyOf(decisions, settled));
        CompletableFuture<Acquisition> result = all.handle((ignored, ex) -> answers.settle(acquisition, decisions, starts,
                settled)).thenCompose(Function.identity());
        BackendRequests.endWaitsWhenCancelled(result, calls, decisions, settled);
        refunds.giveBackHeldWhenCancelled(result, calls, decisions, settled);
        return result;
    }

    /**
     * Settles a call that passed and has run with {@code result} or {@code exception}: gives back the permits of each
     * limit whose {@code chargeWhen} does not hold. Only called for calls with such a limit
     * ({@link Acquisition#chargedByOutcome}).
     */
    CompletableFuture<Void> settleCharges(Acquisition acquisition, Object target, Class<?> targetClass, Object[] args,
            Object result, Throwable exception) {
        return charges.settle(acquisition, target, targetClass, args, result, exception);
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

    /**
     * Tells the listeners, and {@code extraListener} if not null, the outcomes of a decided call, and every limit it
     * went through unless its charges are yet to be settled ({@link #notifySettled} then).
     */
    void notifyListeners(Acquisition acquisition, RateLimitListener extraListener, boolean settledLater) {
        listeners.tell(acquisition.outcomes(), extraListener);
        if (!settledLater) {
            notifySettled(acquisition, extraListener);
        }
    }

    /** Tells the listeners, and {@code extraListener} if not null, every limit of a settled call. */
    void notifySettled(Acquisition acquisition, RateLimitListener extraListener) {
        listeners.tellSettled(acquisition.limits(), acquisition.notAsked(), extraListener);
    }

}
