package io.github.redissonratelimit.key;

import java.lang.reflect.Method;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
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
        return new KeyExpression(expression, parser.parseExpression(expression), method, methodDescription,
                parameterNames.getParameterNames(method), beanResolver);
    }
}
