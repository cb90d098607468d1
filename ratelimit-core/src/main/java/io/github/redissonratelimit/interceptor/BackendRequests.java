package io.github.redissonratelimit.interceptor;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.springframework.util.function.SingletonSupplier;

import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.RateLimitBackend;

/**
 * How the interceptor asks the decision stack (the one {@link RateLimitBackend} it was given, with every layer the
 * application composed: outage policy, wait, rejection cache, deadline and circuits) for the limits of a call.
 */
final class BackendRequests {

    private final SingletonSupplier<RateLimitBackend> backend;

    BackendRequests(SingletonSupplier<RateLimitBackend> backend) {
        this.backend = backend;
    }

    /** Asks the decision stack for one limit. */
    CompletableFuture<Decision> decide(AcquireRequest request) {
        try {
            return backend.obtain().acquire(request).toCompletableFuture();
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /**
     * Asks the decision stack for the limits of {@code calls} from {@code from} on, in one batch: the stages of those
     * asked, in order; fewer when an answer known at once may end the call (the caller asks the rest again if it
     * does not).
     */
    List<CompletionStage<Decision>> decideAll(List<LimitCall> calls, int from) {
        List<AcquireRequest> requests = new ArrayList<>(calls.size() - from);
        for (int i = from; i < calls.size(); i++) {
            requests.add(calls.get(i).request());
        }
        try {
            return backend.obtain().acquireAll(requests);
        }
        catch (RuntimeException ex) {
            return List.of(CompletableFuture.failedFuture(ex));
        }
    }

    /**
     * A caller that stops waiting for the decisions (an interrupted thread, a cancelled future or subscription)
     * cancels {@code result} (the call's decisions): the limits that wait for permits stop waiting then, so that no
     * permit is taken for nobody. Only calls with such a limit pay for the link.
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
