package io.github.redissonratelimit.operation;

import java.lang.reflect.Method;
import java.util.List;

/**
 * Finds the limits an annotation declares on a method or a class. Where to look first, and what a
 * declaration then means, is up to {@link AnnotationRateLimitOperationSource} and
 * {@link RateLimitOperationFactory}.
 */
interface RateLimitAnnotationParser {

    /** A quick pre-check: false when no method or type of the class can carry the annotation. */
    boolean isCandidateClass(Class<?> targetClass);

    /** The declarations on the method, or on the nearest method it overrides or implements; empty if none. */
    List<RateLimitDeclaration> parse(Method method);

    /** The declarations on the class, or on its nearest superclass or interface; empty if none. */
    List<RateLimitDeclaration> parse(Class<?> type);
}
