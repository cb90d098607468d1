package io.github.redissonratelimit.operation;

import java.lang.reflect.Method;
import java.util.List;

import io.github.redissonratelimit.InvalidRateLimitException;

/** Which rate limits apply to a method; answers from a cache after the first call per method. */
public interface RateLimitOperationSource {

    /**
     * @param targetClass the class of the object the method is called on (may be null)
     * @return the limits, in the order they are checked; empty when the method is not limited
     * @throws InvalidRateLimitException when an annotation on the method is not valid
     */
    List<RateLimitOperation> getOperations(Method method, Class<?> targetClass);

    /** A quick pre-check: false when no method of the class can carry a limit. */
    default boolean isCandidateClass(Class<?> targetClass) {
        return true;
    }

    /** The limits and names found so far (for monitoring and checks); empty when the source does not keep them. */
    default DeclaredRateLimits declaredLimits() {
        return new DeclaredRateLimits();
    }
}
