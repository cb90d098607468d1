package io.github.redissonratelimit.operation;

import java.lang.reflect.Method;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/** Which rate limits apply to a method; answers from a cache after the first call per method. */
public interface RateLimitOperationSource {

    /**
     * @param targetClass the class of the object the method is called on (may be null)
     * @return the limits, in the order they are checked; empty when the method is not limited
     * @throws InvalidRateLimitException when an annotation on the method is not valid
     */
    List<RateLimitOperation> getOperations(Method method, Class<?> targetClass);

    /** The {@code name}s declared by the annotations seen so far (policies may be configured under them). */
    default Set<String> declaredNames() {
        return Set.of();
    }

    /** A quick pre-check: false when no method of the class can carry a limit. */
    default boolean isCandidateClass(Class<?> targetClass) {
        return true;
    }

    /** The limits known so far (for monitoring); empty when the source does not keep them. */
    default Collection<RateLimitOperation> declaredOperations() {
        return List.of();
    }
}
