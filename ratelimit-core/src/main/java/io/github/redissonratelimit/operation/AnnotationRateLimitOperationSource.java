package io.github.redissonratelimit.operation;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.core.MethodClassKey;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.key.KeyExpressionParser;

/**
 * Finds the {@link RateLimit}s of a method: those on the method (or a method it overrides or implements),
 * else, for a public instance method, those on its class (or a superclass or interface). What the
 * annotations mean is up to the {@link RateLimitAnnotationParser} and the {@link RateLimitOperationFactory}.
 *
 * <p>Each (method, target class) is looked up once; each method, however it is reached, is parsed and
 * validated once.
 */
public class AnnotationRateLimitOperationSource implements RateLimitOperationSource {

    private static final List<RateLimitOperation> NONE = List.of();

    private final RateLimitAnnotationParser parser;
    private final RateLimitOperationFactory factory;
    private final DeclaredRateLimits declared = new DeclaredRateLimits();
    private final Map<MethodClassKey, List<RateLimitOperation>> cache = new ConcurrentHashMap<>(256);
    /**
     * The operations of a method called on the class that declares it, the common case, by the method alone: looked
     * up on every limited call, without a key object per call; {@link #cache} holds the other cases.
     */
    private final Map<Method, List<RateLimitOperation>> declaredOnTarget = new ConcurrentHashMap<>(256);

    public AnnotationRateLimitOperationSource(KeyExpressionParser keyParser) {
        this(keyParser, RateLimitPolicies.NONE);
    }

    public AnnotationRateLimitOperationSource(KeyExpressionParser keyParser, RateLimitPolicies policies) {
        this(new MergedRateLimitAnnotationParser(), new RateLimitOperationFactory(keyParser, policies));
    }

    AnnotationRateLimitOperationSource(RateLimitAnnotationParser parser, RateLimitOperationFactory factory) {
        this.parser = parser;
        this.factory = factory;
    }

    @Override
    public DeclaredRateLimits declaredLimits() {
        return declared;
    }

    @Override
    public boolean isCandidateClass(Class<?> targetClass) {
        return parser.isCandidateClass(targetClass);
    }

    @Override
    public List<RateLimitOperation> getOperations(Method method, Class<?> targetClass) {
        if (method.getDeclaringClass() == Object.class) {
            return NONE;
        }
        return targetClass == method.getDeclaringClass() ? cached(declaredOnTarget, method, method, targetClass)
                : cached(cache, new MethodClassKey(method, targetClass), method, targetClass);
    }

    /** The operations {@code cached} holds under {@code key}, found and kept there the first time. */
    private <K> List<RateLimitOperation> cached(Map<K, List<RateLimitOperation>> cached, K key, Method method,
            Class<?> targetClass) {
        List<RateLimitOperation> operations = cached.get(key);
        if (operations == null) {
            operations = find(LimitedMethod.resolve(method, targetClass));
            cached.put(key, operations);
        }
        return operations;
    }

    private List<RateLimitOperation> find(LimitedMethod method) {
        List<RateLimitDeclaration> onMethod = parser.parse(method.method());
        if (!onMethod.isEmpty()) {
            return build(onMethod, method, method.nameOfMethod());
        }
        if (!method.isPublicInstanceMethod()) {
            return NONE;
        }
        List<RateLimitDeclaration> onClass = parser.parse(method.userClass());
        return onClass.isEmpty() ? NONE : build(onClass, method, method.nameOfClass());
    }

    private List<RateLimitOperation> build(List<RateLimitDeclaration> declarations, LimitedMethod method,
            LimitedMethod.DefaultName unnamed) {
        declared.recordNames(declarations);
        return declared.operationsOf(method, () -> factory.create(declarations, method, unnamed));
    }
}
