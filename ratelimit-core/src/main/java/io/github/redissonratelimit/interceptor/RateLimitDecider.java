package io.github.redissonratelimit.interceptor;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.redissonratelimit.operation.RateLimitOperation;

/**
 * Decides limits that are not declared on a method (URL routes in {@code application.yml}, a gateway's requests) on
 * the path of annotated calls: the limits changed at runtime applied, one batch through the decision stack, the
 * grants of a request that does not pass given back, the listeners told. Obtained from
 * {@link RateLimitInterceptor#decider()}.
 */
public final class RateLimitDecider {

    private final RateLimitAspectSupport support;

    RateLimitDecider(RateLimitAspectSupport support) {
        this.support = support;
    }

    /**
     * Decides {@code limits} in order, as the limits of one annotated call are. The stage completes with the decision
     * (a backend failure is recorded in it, as the limits' outage policy says); the listeners are told when the
     * caller calls {@link RateLimitDecision#notifyListeners}, on its own thread.
     */
    public CompletionStage<RateLimitDecision> decide(List<KeyedLimit> limits) {
        if (limits.isEmpty()) {
            return CompletableFuture.completedFuture(new RateLimitDecision(new Acquisition(List.of()), support));
        }
        List<RateLimitOperation> declared = new ArrayList<>(limits.size());
        for (KeyedLimit limit : limits) {
            declared.add(limit.operation());
        }
        List<RateLimitOperation> operations = support.overridden(declared);
        List<LimitCall> calls = new ArrayList<>(limits.size());
        for (int i = 0; i < limits.size(); i++) {
            KeyedLimit limit = limits.get(i);
            calls.add(support.limitCall(operations.get(i), limit.key(), limit.permits()));
        }
        return support.acquire(calls).thenApply(acquisition -> new RateLimitDecision(acquisition, support));
    }
}
