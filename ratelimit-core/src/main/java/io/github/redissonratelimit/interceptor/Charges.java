package io.github.redissonratelimit.interceptor;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redissonratelimit.RateLimitConditionException;
import io.github.redissonratelimit.key.ChargeCondition;
import io.github.redissonratelimit.log.LogSafe;

/**
 * Charges by outcome ({@code @RateLimit(chargeWhen = ...)}): once a call that passed has run, the permits of each
 * limit whose condition does not hold are given back through the decision stack. A condition that fails keeps the
 * charge and is logged once per limit.
 */
final class Charges {

    private static final Log logger = LogFactory.getLog(RateLimitInterceptor.class);

    private final Refunds refunds;
    private final Set<String> failedConditions = ConcurrentHashMap.newKeySet();

    Charges(Refunds refunds) {
        this.refunds = refunds;
    }

    /**
     * Settles the charges of a call that ended with {@code result} or {@code exception}; the stage completes, never
     * exceptionally, once the permits not charged are given back (or their refund failed and was logged).
     */
    CompletableFuture<Void> settle(Acquisition acquisition, Object target, Class<?> targetClass, Object[] args,
            Object result, Throwable exception) {
        List<CompletableFuture<Void>> refunded = new ArrayList<>(1);
        for (Acquisition.Grant grant : acquisition.grants()) {
            ChargeCondition condition = grant.call().operation().chargeWhen();
            if (condition != null && !charged(grant, condition, target, targetClass, args, result, exception)) {
                refunded.add(refunds.giveBack(acquisition, grant).toCompletableFuture());
            }
        }
        return refunded.size() == 1 ? refunded.get(0)
                : CompletableFuture.allOf(refunded.toArray(CompletableFuture[]::new));
    }

    private boolean charged(Acquisition.Grant grant, ChargeCondition condition, Object target, Class<?> targetClass,
            Object[] args, Object result, Throwable exception) {
        try {
            return condition.holds(target, targetClass, args, result, exception);
        }
        catch (RateLimitConditionException ex) {
            String limit = grant.call().operation().displayName();
            if (failedConditions.add(limit)) {
                logger.warn(LogSafe.text("chargeWhen of rate limit " + limit + " failed, so the call stays charged"
                        + " (logged once per limit): " + ex.getMessage()));
            }
            return true;
        }
    }
}
