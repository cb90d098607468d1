package io.github.redissonratelimit.key;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Parses key expressions, once per annotated method. Expressions run interpreted at first and are
 * compiled to bytecode once warm ({@link SpelCompilerMode#MIXED}), falling back to interpretation
 * whenever a compiled form cannot handle an argument.
 */
public final class KeyExpressionParser {

    private final SpelExpressionParser parser;
    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();
    private final BeanResolver beanResolver;

    public KeyExpressionParser() {
        this(null);
    }

    /** @param beanFactory resolves {@code @beanName} references; may be null */
    public KeyExpressionParser(BeanFactory beanFactory) {
        ClassLoader classLoader = KeyExpressionParser.class.getClassLoader();
        this.parser = new SpelExpressionParser(new SpelParserConfiguration(SpelCompilerMode.MIXED, classLoader));
        this.beanResolver = beanFactory == null ? null : new BeanFactoryResolver(beanFactory);
    }

    /**
     * @param methodDescription how errors name the method
     * @throws ParseException when the expression is not valid SpEL
     */
    public KeyExpression parse(String expression, Method method, String methodDescription) {
        return new KeyExpression(parseFor(expression, method, methodDescription));
    }

    private MethodExpression parseFor(String expression, Method method, String methodDescription) {
        Expression parsed = parser.parseExpression(expression);
        String[] names = parameterNames.getParameterNames(method);
        return new MethodExpression(expression, parsed, method, methodDescription, names, beanResolver,
                unknownVariables(parsed, names, method.getParameterCount()));
    }

    /** Variables the expression reads that the call will not have (so they would always be null). */
    private static List<String> unknownVariables(Expression expression, String[] names, int parameterCount) {
        if (!(expression instanceof SpelExpression spel)) {
            return List.of();
        }
        Set<String> referenced = new LinkedHashSet<>();
        collectVariables(spel.getAST(), referenced);
        List<String> unknown = new ArrayList<>();
        for (String variable : referenced) {
            boolean known = variable.equals("root") || variable.equals("this")
                    || (names != null && Arrays.asList(names).contains(variable))
                    || KeyEvaluationContext.indexVariable(variable) >= 0
                            && KeyEvaluationContext.indexVariable(variable) < parameterCount;
            if (!known) {
                unknown.add(variable);
            }
        }
        return List.copyOf(unknown);
    }

    private static void collectVariables(SpelNode node, Set<String> into) {
        if (node instanceof VariableReference) {
            into.add(node.toStringAST().substring(1));
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            collectVariables(node.getChild(i), into);
        }
    }

    /**
     * Parses a {@code condition} or {@code skipIf} expression; it sees the same variables as a key.
     * @param attribute the annotation attribute, for error messages
     * @throws ParseException when the expression is not valid SpEL
     */
    public ConditionExpression parseCondition(String expression, String attribute, Method method,
            String methodDescription) {
        return new ConditionExpression(parseFor(expression, method, methodDescription), attribute);
    }
}
