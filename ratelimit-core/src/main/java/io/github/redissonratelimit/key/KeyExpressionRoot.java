package io.github.redissonratelimit.key;

import java.lang.reflect.Method;

/** The root object of a key expression: {@code #root.methodName}, {@code args}, {@code target}. */
public record KeyExpressionRoot(Method method, Object[] args, Object target, Class<?> targetClass) {

    public String getMethodName() {
        return method.getName();
    }

    public Method getMethod() {
        return method;
    }

    public Object[] getArgs() {
        return args;
    }

    public Object getTarget() {
        return target;
    }

    public Class<?> getTargetClass() {
        return targetClass;
    }
}
