package io.github.redissonratelimit.operation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.util.ClassUtils;

/**
 * A method as its limits see it: the most specific implementation on the user's class (not a proxy's), so a
 * call through an interface, a CGLIB subclass or a bridge method finds the limits of the same method.
 */
record LimitedMethod(Method method, Class<?> userClass) {

    /** @param targetClass the class of the object called; null when not known */
    static LimitedMethod resolve(Method method, Class<?> targetClass) {
        Class<?> userClass = targetClass != null ? ClassUtils.getUserClass(targetClass) : method.getDeclaringClass();
        return new LimitedMethod(BridgeMethodResolver.findBridgedMethod(AopUtils.getMostSpecificMethod(method, userClass)),
                userClass);
    }

    /** How errors and the actuator name the method: {@code com.example.Orders.submit(String, int)}. */
    String description() {
        return userClass.getName() + "." + method.getName() + Stream.of(method.getParameterTypes())
                .map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
    }

    /** A class-level limit covers only the methods callers can see and call on an instance. */
    boolean isPublicInstanceMethod() {
        return Modifier.isPublic(method.getModifiers()) && !Modifier.isStatic(method.getModifiers());
    }

    /** The name of a limit declared without one on this method. */
    DefaultName nameOfMethod() {
        return new DefaultName(userClass.getName() + "." + method.getName(),
                userClass.getSimpleName() + "." + method.getName());
    }

    /** The name of a limit declared without one on the class: one limit for all its public methods. */
    DefaultName nameOfClass() {
        return new DefaultName(userClass.getName(), userClass.getSimpleName());
    }

    /** @param displayName without the package, as clients see it */
    record DefaultName(String name, String displayName) {
    }
}
