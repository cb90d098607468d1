package io.github.redissonratelimit.autoconfigure.aot;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import io.github.redissonratelimit.annotation.RateLimit;

/**
 * Finds, at build time, the beans with rate limited methods and keeps for the native image:
 * <ul>
 * <li>each limited method, invocable: key expressions read the parameter names ({@code #userId}) from its
 * metadata, and the call proceeds to it reflectively;</li>
 * <li>each composed annotation that carries {@code @RateLimit}, whose attributes are read reflectively;</li>
 * <li>each method named by a {@code fallback}, which the interceptor calls reflectively (all overloads of the
 * name: which one fits is decided when the application starts).</li>
 * </ul>
 * It looks for the annotation only, with the rules of the operation source (on the method or what it
 * overrides, else on the class for its public methods). Declarations are not validated here: their values
 * may come from {@code ratelimit.policies.*}, which only the running application knows.
 */
class RateLimitBeanRegistrationAotProcessor implements BeanRegistrationAotProcessor {

    @Override
    public BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
        Class<?> beanClass = ClassUtils.getUserClass(registeredBean.getBeanClass());
        if (!AnnotationUtils.isCandidateClass(beanClass, RateLimit.class)) {
            return null;
        }
        Set<Method> methods = new LinkedHashSet<>();
        Set<Class<? extends Annotation>> composedAnnotations = new LinkedHashSet<>();
        Set<String> fallbacks = new LinkedHashSet<>();
        MergedAnnotations onClass = MergedAnnotations.from(beanClass, SearchStrategy.TYPE_HIERARCHY);
        boolean classLimited = onClass.isPresent(RateLimit.class);
        if (classLimited) {
            collectComposedAnnotations(onClass, composedAnnotations);
            collectFallbacks(onClass, fallbacks);
        }
        for (Method method : ReflectionUtils.getUniqueDeclaredMethods(beanClass, ReflectionUtils.USER_DECLARED_METHODS)) {
            MergedAnnotations onMethod = MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY);
            if (onMethod.isPresent(RateLimit.class)) {
                methods.add(method);
                collectComposedAnnotations(onMethod, composedAnnotations);
                collectFallbacks(onMethod, fallbacks);
            }
            else if (classLimited && Modifier.isPublic(method.getModifiers()) && !Modifier.isStatic(method.getModifiers())) {
                methods.add(method);
            }
        }
        if (methods.isEmpty()) {
            return null;
        }
        if (!fallbacks.isEmpty()) {
            methods.addAll(List.of(ReflectionUtils.getUniqueDeclaredMethods(beanClass,
                    candidate -> fallbacks.contains(candidate.getName()))));
        }
        return (generationContext, code) -> {
            ReflectionHints reflection = generationContext.getRuntimeHints().reflection();
            methods.forEach(method -> reflection.registerMethod(method, ExecutableMode.INVOKE));
            composedAnnotations.forEach(type -> reflection.registerType(type, MemberCategory.INVOKE_DECLARED_METHODS));
        };
    }

    private static void collectFallbacks(MergedAnnotations annotations, Set<String> fallbacks) {
        annotations.stream(RateLimit.class).map(annotation -> annotation.getString("fallback").trim())
                .filter(name -> !name.isEmpty()).forEach(fallbacks::add);
    }

    private static void collectComposedAnnotations(MergedAnnotations annotations,
            Set<Class<? extends Annotation>> composedAnnotations) {
        annotations.stream(RateLimit.class).map(MergedAnnotation::getMetaTypes).forEach(types -> types.stream()
                .filter(type -> type != RateLimit.class).forEach(composedAnnotations::add));
    }
}
