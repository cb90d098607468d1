package io.github.redissonratelimit.key;

import org.springframework.expression.BeanResolver;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * Evaluation context of one call. Arguments are looked up by the parameter names discovered once per
 * method (and {@code p<n>} / {@code a<n>}), instead of being copied into the variable map per call.
 */
final class KeyEvaluationContext extends StandardEvaluationContext {

    private final String[] parameterNames;
    private final Object[] args;

    KeyEvaluationContext(KeyExpressionRoot root, String[] parameterNames, BeanResolver beanResolver) {
        super(root);
        this.parameterNames = parameterNames;
        this.args = root.args();
        if (beanResolver != null) {
            setBeanResolver(beanResolver);
        }
    }

    @Override
    public Object lookupVariable(String name) {
        if (parameterNames != null) {
            for (int i = 0; i < parameterNames.length; i++) {
                if (parameterNames[i].equals(name)) {
                    return args[i];
                }
            }
        }
        int index = indexVariable(name);
        if (index >= 0 && index < args.length) {
            return args[index];
        }
        return super.lookupVariable(name);
    }

    /** {@code p3} or {@code a3} gives 3; anything else -1. */
    static int indexVariable(String name) {
        if (name.length() < 2 || (name.charAt(0) != 'p' && name.charAt(0) != 'a')) {
            return -1;
        }
        int index = 0;
        for (int i = 1; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            index = index * 10 + (c - '0');
        }
        return index;
    }
}
