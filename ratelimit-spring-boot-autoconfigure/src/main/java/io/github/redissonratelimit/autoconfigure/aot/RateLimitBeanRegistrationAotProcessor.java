package io.github.redissonratelimit.autoconfigure.aot;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.Set;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.operation.AnnotationRateLimitOperationSource;
import io.github.redissonratelimit.operation.RateLimitOperationSource;

/**
 * Finds, at build time, the beans with rate limited methods and keeps for the native image:
 * <ul>
 * <li>each limited method, invocable: key expressions read the parameter names ({@code #userId}) from its
 * metadata, and the call proceeds to it reflectively;</li>
 * <li>each composed annotation that carries {@code @RateLimit}, whose attributes are read reflectively.</li>
 * </ul>
 * The declarations are validated on the way, so an invalid {@code @RateLimit} already fails AOT processing
 * with the message it would give at startup.
 */
class RateLimitBeanRegistrationAotProcessor implements BeanRegistrationAotProcessor {

    private final RateLimitOperationSource operationSource =
            new AnnotationRateLimitOperationSource(new KeyExpressionParser());

    @Override
    public BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
        Class<?> beanClass = ClassUtils.getUserClass(registeredBean.getBeanClass());
        if (!operationSource.isCandidateClass(beanClass)) {
            return null;
        }
        Set<Method> methods = new LinkedHashSet<>();
        Set<Class<? extends Annotation>> composedAnnotations = new LinkedHashSet<>();
        collectComposedAnnotations(MergedAnnotations.from(beanClass, SearchStrategy.TYPE_HIERARCHY), composedAnnotations);
        for (Method method : ReflectionUtils.getUniqueDeclaredMethods(beanClass, ReflectionUtils.USER_DECLARED_METHODS)) {
            if (!operationSource.getOperations(method, beanClass).isEmpty()) {
                methods.add(method);
                collectComposedAnnotations(MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY),
                        composedAnnotations);
            }
        }
        if (methods.isEmpty()) {
            return null;
        }
        return (generationContext, code) -> {
            ReflectionHints reflection = generationContext.getRuntimeHints().reflection();
            methods.forEach(method -> reflection.registerMethod(method, ExecutableMode.INVOKE));
            composedAnnotations.forEach(type -> reflection.registerType(type, MemberCategory.INVOKE_DECLARED_METHODS));
        };
    }

    private static void collectComposedAnnotations(MergedAnnotations annotations,
            Set<Class<? extends Annotation>> composedAnnotations) {
        annotations.stream(RateLimit.class).map(MergedAnnotation::getMetaTypes).forEach(types -> types.stream()
                .filter(type -> type != RateLimit.class).forEach(composedAnnotations::add));
    }
}
