package io.github.redissonratelimit.interceptor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.util.function.SingletonSupplier;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.limiter.AcquireBatch;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.limiter.WaitingRateLimitBackend;
import io.github.redissonratelimit.local.InstanceCount;
import io.github.redissonratelimit.local.LocalFallback;
import io.github.redissonratelimit.operation.RateLimitOperation;

/**
 * How one limit of a call is decided, outermost first:
 * <ol>
 * <li>the local outage policy ({@link LocalPolicyDecisions}), for a limit under {@code LOCAL} not in shadow mode:
 * keeps to this instance's share after an outage, decides in memory while Redis gives no decision, records what
 * Redis granted;</li>
 * <li>the wait ({@link WaitingRateLimitBackend}), for a limit with a {@code waitTimeout} not in shadow mode;</li>
 * <li>the backend ({@link RateLimitBackend} bean): with the auto-configuration, the Redisson backend wrapped by the
 * {@code RateLimitBackendDecorator}s in their order, by default the local rejection cache around the deadline and
 * circuit breaker around Redis.</li>
 * </ol>
 * What a limit without a decision then does ({@code ALLOW}, {@code DENY}) is the interceptor's to say.
 */
final class DecisionStack {

    private final SingletonSupplier<RateLimitBackend> backend;
    private final Map<Duration, WaitingRateLimitBackend> waitingBackends = new ConcurrentHashMap<>();
    private volatile BackendErrorPolicy defaultBackendErrorPolicy = BackendErrorPolicy.LOCAL;
    private volatile LocalFallback localFallback = new LocalFallback(InstanceCount.fixed(1, 0), 10_000);

    DecisionStack(SingletonSupplier<RateLimitBackend> backend) {
        this.backend = backend;
    }

    void setDefaultBackendErrorPolicy(BackendErrorPolicy policy) {
        if (policy == null || policy == BackendErrorPolicy.DEFAULT) {
            throw new IllegalArgumentException("The default backend error policy must be LOCAL, ALLOW or DENY but was "
                    + policy);
        }
        this.defaultBackendErrorPolicy = policy;
    }

    BackendErrorPolicy getDefaultBackendErrorPolicy() {
        return defaultBackendErrorPolicy;
    }

    void setLocalFallback(LocalFallback localFallback) {
        this.localFallback = Objects.requireNonNull(localFallback, "localFallback");
    }

    LocalFallback getLocalFallback() {
        return localFallback;
    }

    /** The limit's outage policy, {@code DEFAULT} resolved. */
    BackendErrorPolicy policyOf(RateLimitOperation operation) {
        BackendErrorPolicy policy = operation.backendErrorPolicy();
        return policy == BackendErrorPolicy.DEFAULT ? defaultBackendErrorPolicy : policy;
    }

    /**
     * Asks for the limit's permits through the stack.
     *
     * @param local set at {@code index} when the local outage policy made the decision in memory
     */
    CompletionStage<Decision> decide(LimitCall call, boolean[] local, int index) {
        if (!underLocalPolicy(call)) {
            return ask(call);
        }
        return LocalPolicyDecisions.ask(localFallback, call, () -> ask(call), local, index);
    }

    /**
     * Asks for the permits of {@code calls} from {@code from} on, through the stack, in one batch of the backend
     * ({@link RateLimitBackend#acquireAll}): the stages of those asked, in order; fewer than asked for when an answer
     * known at once may end the call (the caller asks the rest again if it does not).
     *
     * @param local set at a call's index when the local outage policy made its decision in memory
     */
    List<CompletionStage<Decision>> decideAll(List<LimitCall> calls, int from, boolean[] local) {
        List<LimitCall> asked = calls.subList(from, calls.size());
        List<AcquireRequest> requests = new ArrayList<>(asked.size());
        for (LimitCall call : asked) {
            RateLimitOperation operation = call.operation();
            requests.add(new AcquireRequest(call.limiterName(), operation.spec(), call.permits(), policyOf(operation),
                    operation.shadow(), call.waits() ? operation.waitTimeout() : Duration.ZERO));
        }
        LocalFallback fallback = localFallback;
        return AcquireBatch.decorate(requests, backend.obtain(), new AcquireBatch.Layer() {

            @Override
            public CompletionStage<Decision> answer(int index) {
                LimitCall call = asked.get(index);
                return underLocalPolicy(call)
                        ? LocalPolicyDecisions.rejectionBeforeRedis(fallback, call, local, from + index) : null;
            }

            @Override
            public CompletionStage<Decision> after(int index, CompletionStage<Decision> first) {
                LimitCall call = asked.get(index);
                CompletableFuture<Decision> decision = call.waits()
                        ? waiting(call).acquireAfter(first, call.limiterName(), call.operation().spec(), call.permits())
                        : first.toCompletableFuture();
                return underLocalPolicy(call)
                        ? LocalPolicyDecisions.afterRedis(fallback, call, decision, local, from + index) : decision;
            }
        }, (request, index) -> { });
    }

    private boolean underLocalPolicy(LimitCall call) {
        RateLimitOperation operation = call.operation();
        return !operation.shadow() && policyOf(operation) == BackendErrorPolicy.LOCAL;
    }

    private CompletionStage<Decision> ask(LimitCall call) {
        RateLimitOperation operation = call.operation();
        try {
            return backendFor(call).acquire(call.limiterName(), operation.spec(), call.permits());
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    private RateLimitBackend backendFor(LimitCall call) {
        return call.waits() ? waiting(call) : backend.obtain();
    }

    private WaitingRateLimitBackend waiting(LimitCall call) {
        Duration maxWait = call.operation().waitTimeout();
        WaitingRateLimitBackend waiting = waitingBackends.get(maxWait);
        return waiting != null ? waiting
                : waitingBackends.computeIfAbsent(maxWait, wait -> new WaitingRateLimitBackend(backend.obtain(), wait));
    }

    /**
     * A caller that stops waiting for the decisions (an interrupted thread, a cancelled future or subscription)
     * cancels {@code result} (the call's decisions): the limits that wait for permits stop waiting then, so that no permit is taken for
     * nobody (see {@link WaitingRateLimitBackend}). Only calls with such a limit pay for the link.
     */
    static void endWaitsWhenCancelled(CompletableFuture<Acquisition> result, List<LimitCall> calls,
            CompletableFuture<Decision>[] decisions, int asked) {
        boolean waits = false;
        for (int i = 0; i < asked && !waits; i++) {
            waits = calls.get(i).waits();
        }
        if (waits) {
            result.whenComplete((acquisition, ex) -> {
                if (result.isCancelled()) {
                    for (int i = 0; i < asked; i++) {
                        if (calls.get(i).waits()) {
                            decisions[i].cancel(false);
                        }
                    }
                }
            });
        }
    }
}
