package io.github.redissonratelimit.autoconfigure.diagnostics;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import io.github.redissonratelimit.UnsupportedRedissonVersionException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.RateLimiterUnavailableException;
import io.github.redissonratelimit.redis.RedissonCompatibility;

/**
 * Fails startup with {@link RateLimiterUnavailableException} when the application declares limits
 * ({@code @RateLimit} on a bean's class or methods, or {@code ratelimit.policies.*}) but there is no
 * {@code RedissonClient} to enforce them: without this, the rate limiting auto-configuration backs off and every
 * limit silently does nothing. An application that declares no limit starts as usual.
 */
class DeclaredLimitsWithoutLimiterCheck
        implements SmartInitializingSingleton, BeanFactoryAware, BeanClassLoaderAware, EnvironmentAware {

    /** How many declarations the failure lists. */
    static final int LISTED = 5;

    private static final String REDISSON_CLIENT = "org.redisson.api.RedissonClient";

    /** The policies by name, each a map of its properties. */
    private static final Bindable<Map<String, Map<String, Object>>> POLICIES = Bindable.of(ResolvableType
            .forClassWithGenerics(Map.class, ResolvableType.forClass(String.class),
                    ResolvableType.forClassWithGenerics(Map.class, String.class, Object.class)));

    private ListableBeanFactory beanFactory;
    private ClassLoader classLoader;
    private Environment environment;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
        this.beanFactory = beanFactory instanceof ListableBeanFactory listable ? listable : null;
    }

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        this.classLoader = classLoader;
    }

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void afterSingletonsInstantiated() {
        Set<String> declarations = new LinkedHashSet<>(limitedMethods());
        declarations.addAll(policies());
        if (declarations.isEmpty()) {
            return;
        }
        List<String> listed = declarations.stream().limit(LISTED).toList();
        if (!ClassUtils.isPresent(REDISSON_CLIENT, classLoader)) {
            throw new RateLimiterUnavailableException(listed, declarations.size(), null, null);
        }
        String version = RedissonCompatibility.version(classLoader);
        String problem = null;
        try {
            RedissonCompatibility.check(classLoader);
        }
        catch (UnsupportedRedissonVersionException ex) {
            problem = ex.getProblem();
        }
        throw new RateLimiterUnavailableException(listed, declarations.size(), version, problem);
    }

    /** The methods (and classes) of bean types that carry {@code @RateLimit}, as {@code Type.method(Args)}. */
    private List<String> limitedMethods() {
        List<String> limited = new ArrayList<>();
        if (beanFactory == null) {
            return limited;
        }
        Set<Class<?>> seen = new LinkedHashSet<>();
        for (String beanName : beanFactory.getBeanDefinitionNames()) {
            Class<?> type = beanFactory.getType(beanName, false);
            if (type != null && seen.add(ClassUtils.getUserClass(type))) {
                collectLimited(ClassUtils.getUserClass(type), limited);
            }
        }
        return limited;
    }

    private static void collectLimited(Class<?> type, List<String> limited) {
        if (!AnnotationUtils.isCandidateClass(type, RateLimit.class)) {
            return;
        }
        if (isLimited(type)) {
            limited.add(type.getName());
        }
        ReflectionUtils.doWithMethods(type, method -> {
            if (isLimited(method)) {
                limited.add(describe(type, method));
            }
        }, ReflectionUtils.USER_DECLARED_METHODS);
    }

    private static boolean isLimited(AnnotatedElement element) {
        return MergedAnnotations.from(element, SearchStrategy.TYPE_HIERARCHY).isPresent(RateLimit.class);
    }

    private static String describe(Class<?> type, Method method) {
        StringBuilder description = new StringBuilder(type.getName()).append('.').append(method.getName()).append('(');
        Class<?>[] parameters = method.getParameterTypes();
        for (int i = 0; i < parameters.length; i++) {
            description.append(i == 0 ? "" : ", ").append(parameters[i].getSimpleName());
        }
        return description.append(')').toString();
    }

    /** The configured policies, as {@code ratelimit.policies.<name>}. */
    private List<String> policies() {
        if (environment == null) {
            return List.of();
        }
        return Binder.get(environment).bind("ratelimit.policies", POLICIES)
                .map(policies -> policies.keySet().stream().map(name -> "ratelimit.policies." + name).toList())
                .orElse(List.of());
    }
}
