package io.github.redissonratelimit.key;

import java.lang.reflect.Method;
import java.util.List;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelNode;
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
        return parseFor(expression, method, methodDescription, List.of());
    }

    private MethodExpression parseFor(String expression, Method method, String methodDescription,
            List<String> extraVariables) {
        SpelExpression parsed = parser.parseRaw(expression);
        String[] names = parameterNames.getParameterNames(method);
        SpelNode ast = parsed.getAST();
        return new MethodExpression(expression, parsed, method, methodDescription, names, beanResolver,
                UnresolvedReferences.variables(ast, names, method.getParameterCount(), extraVariables),
                UnresolvedReferences.rootProperties(ast));
    }

    /**
     * Parses a {@code chargeWhen} expression: it sees the variables of a key, and {@code #result} and
     * {@code #exception}, what the call returned or threw.
     * @throws ParseException when the expression is not valid SpEL
     */
    public ChargeCondition parseChargeCondition(String expression, Method method, String methodDescription) {
        return new ChargeCondition(parseFor(expression, method, methodDescription, ChargeCondition.VARIABLES));
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

    /**
     * Parses an expression whose value the caller interprets (e.g. {@code cost}); it sees the same variables as
     * a key.
     * @param attribute the annotation attribute, for error messages
     * @throws ParseException when the expression is not valid SpEL
     */
    public ValueExpression parseValue(String expression, String attribute, Method method, String methodDescription) {
        return new ValueExpression(parseFor(expression, method, methodDescription), attribute);
    }
}
