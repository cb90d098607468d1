package io.github.redissonratelimit.operation;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.springframework.core.CoroutinesUtils;
import org.springframework.core.KotlinDetector;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import io.github.redissonratelimit.InvalidRateLimitException;
import io.github.redissonratelimit.RateLimitExceededException;

/**
 * The method named by {@code @RateLimit(fallback = ...)}, resolved and checked once when the limited
 * method is first seen: it lives on the same class, takes the limited method's parameters (optionally
 * followed by one that accepts the {@link RateLimitExceededException}) and returns a type the limited
 * method may return.
 */
public final class FallbackMethod {

    private final Method method;
    private final boolean takesException;
    private final boolean limitedSuspends;
    private final boolean suspends;

    private FallbackMethod(Method method, boolean takesException, boolean limitedSuspends) {
        this.method = method;
        this.takesException = takesException;
        this.limitedSuspends = limitedSuspends;
        this.suspends = KotlinDetector.isSuspendingFunction(method);
        ReflectionUtils.makeAccessible(method);
    }

    /**
     * @param description how errors name the limited method
     * @throws InvalidRateLimitException when no method fits
     */
    static FallbackMethod resolve(Class<?> userClass, Method limited, String name, String description) {
        Method[] named = ReflectionUtils.getUniqueDeclaredMethods(userClass, candidate -> candidate.getName().equals(name));
        String expected = signature(limited, name);
        if (named.length == 0) {
            throw new InvalidRateLimitException(description, "fallback", "\"" + name + "\" is not a method of "
                    + userClass.getName(), "declare " + expected + " on " + userClass.getSimpleName()
                    + " or correct the name", null);
        }
        Method withException = find(named, limited, true);
        Method chosen = withException != null ? withException : find(named, limited, false);
        if (chosen == null) {
            throw new InvalidRateLimitException(description, "fallback", "\"" + name + "\" takes "
                    + Stream.of(named).map(FallbackMethod::parameters).sorted().collect(Collectors.joining(" or "))
                    + ", not the parameters of the limited method", "declare " + expected, null);
        }
        Class<?> returnType = limited.getReturnType();
        if (returnType != void.class && !ClassUtils.isAssignable(returnType, chosen.getReturnType())) {
            throw new InvalidRateLimitException(description, "fallback", "\"" + name + "\" returns "
                    + chosen.getReturnType().getSimpleName() + ", which " + limited.getName() + " cannot return (it returns "
                    + returnType.getSimpleName() + ")", "let " + name + " return " + returnType.getSimpleName(), null);
        }
        return new FallbackMethod(chosen, chosen == withException, KotlinDetector.isSuspendingFunction(limited));
    }

    private static Method find(Method[] candidates, Method limited, boolean withException) {
        Class<?>[] expected = parameterTypes(limited);
        for (Method candidate : candidates) {
            Class<?>[] actual = parameterTypes(candidate);
            if (actual.length != expected.length + (withException ? 1 : 0)) {
                continue;
            }
            boolean fits = true;
            for (int i = 0; i < expected.length && fits; i++) {
                fits = ClassUtils.isAssignable(actual[i], expected[i]);
            }
            if (fits && withException) {
                fits = actual[expected.length].isAssignableFrom(RateLimitExceededException.class);
            }
            if (fits) {
                return candidate;
            }
        }
        return null;
    }

    /** The parameters as the source declares them: a Kotlin {@code suspend} function's continuation left out. */
    private static Class<?>[] parameterTypes(Method method) {
        Class<?>[] types = method.getParameterTypes();
        return KotlinDetector.isSuspendingFunction(method) ? Arrays.copyOf(types, types.length - 1) : types;
    }

    private static String signature(Method limited, String name) {
        List<String> parameters = Stream.of(parameterTypes(limited)).map(Class::getSimpleName)
                .collect(Collectors.toList());
        String plain = String.join(", ", parameters);
        parameters.add("RateLimitExceededException ex");
        return limited.getReturnType().getSimpleName() + " " + name + "(" + plain + ") or "
                + limited.getReturnType().getSimpleName() + " " + name + "(" + String.join(", ", parameters) + ")";
    }

    private static String parameters(Method method) {
        return Stream.of(parameterTypes(method)).map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
    }

    public Method method() {
        return method;
    }

    /**
     * Calls the fallback on {@code target} (ignored for a static fallback) with the call's arguments. A Kotlin
     * {@code suspend} fallback of a {@code suspend} method is started as a {@code Mono} (or {@code Flux}), which the
     * caller's coroutine awaits.
     * @throws Throwable what the fallback throws, unwrapped
     */
    public Object invoke(Object target, Object[] args, RateLimitExceededException rejection) throws Throwable {
        Object[] declared = limitedSuspends ? Arrays.copyOf(args, args.length - 1) : args;
        Object[] actual = declared;
        if (takesException) {
            actual = Arrays.copyOf(declared, declared.length + 1);
            actual[declared.length] = rejection;
        }
        Object on = Modifier.isStatic(method.getModifiers()) ? null : target;
        if (suspends) {
            return CoroutinesUtils.invokeSuspendingFunction(method, on, actual);
        }
        try {
            return method.invoke(on, actual);
        }
        catch (InvocationTargetException ex) {
            throw ex.getTargetException();
        }
    }

    @Override
    public String toString() {
        return method.getName() + parameters(method);
    }
}
