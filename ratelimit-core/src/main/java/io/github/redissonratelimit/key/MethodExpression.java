package io.github.redissonratelimit.key;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;

import org.springframework.expression.BeanResolver;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpression;

/**
 * A SpEL expression parsed once for one method; evaluated per call with the call's arguments as
 * variables. Shared by key and condition expressions, which differ only in what a result means.
 */
final class MethodExpression {

    final String source;
    final String methodDescription;
    private final Expression expression;
    private final Method method;
    private final String[] parameterNames;
    private final BeanResolver beanResolver;
    private final List<String> unknownVariables;
    private final List<String> unknownRootProperties;
    private final DirectForm direct;

    MethodExpression(String source, Expression expression, Method method, String methodDescription,
            String[] parameterNames, BeanResolver beanResolver, List<String> unknownVariables,
            List<String> unknownRootProperties) {
        this.source = source;
        this.expression = expression;
        this.method = method;
        this.methodDescription = methodDescription;
        this.parameterNames = parameterNames;
        this.beanResolver = beanResolver;
        this.unknownVariables = unknownVariables;
        this.unknownRootProperties = unknownRootProperties;
        this.direct = expression instanceof SpelExpression spel && unknownVariables.isEmpty()
                ? DirectForm.of(spel.getAST(), parameterNames, method.getParameterCount()) : null;
    }

    /** The value of every call when the expression is one text literal ({@link DirectForm#literal}); else null. */
    String literal() {
        return direct == null ? null : direct.literal();
    }

    /** @throws RuntimeException whatever SpEL throws */
    Object evaluate(Object target, Class<?> targetClass, Object[] args) {
        if (direct != null) {
            Object value = direct.evaluate(args);
            if (value != DirectForm.NOT_DIRECT) {
                return value;
            }
        }
        KeyEvaluationContext context = new KeyEvaluationContext(
                new KeyExpressionRoot(method, args, target, targetClass), parameterNames, beanResolver);
        return expression.getValue(context);
    }

    /**
     * The operand whose null value SpEL wrote into {@code key} as {@code null} ({@link NullKeyParts}), or null; asked
     * only for a key that contains the text. A key the direct form gives has none: a null argument is never direct.
     */
    String nullPart(Object target, Class<?> targetClass, Object[] args, String key) {
        if (!key.contains("null") || !(expression instanceof SpelExpression spel)
                || (direct != null && direct.evaluate(args) != DirectForm.NOT_DIRECT)) {
            return null;
        }
        KeyEvaluationContext context = new KeyEvaluationContext(
                new KeyExpressionRoot(method, args, target, targetClass), parameterNames, beanResolver);
        return NullKeyParts.find(key, spel.getAST(), context);
    }

    /**
     * Evaluates with {@code variables} besides the arguments (an argument of the same name wins), never in the
     * direct form, which only knows arguments.
     * @throws RuntimeException whatever SpEL throws
     */
    Object evaluate(Object target, Class<?> targetClass, Object[] args, Map<String, Object> variables) {
        KeyEvaluationContext context = new KeyEvaluationContext(
                new KeyExpressionRoot(method, args, target, targetClass), parameterNames, beanResolver);
        variables.forEach(context::setVariable);
        return expression.getValue(context);
    }

    boolean parameterNamesKnown() {
        return parameterNames != null;
    }

    String[] parameterNames() {
        return parameterNames == null ? null : parameterNames.clone();
    }

    List<String> unknownVariables() {
        return unknownVariables;
    }

    List<String> unknownRootProperties() {
        return unknownRootProperties;
    }
}
