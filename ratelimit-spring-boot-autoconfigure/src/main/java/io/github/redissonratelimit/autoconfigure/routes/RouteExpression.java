package io.github.redissonratelimit.autoconfigure.routes;

import java.util.Map;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelEvaluationException;
import org.springframework.expression.spel.SpelMessage;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

import io.github.redissonratelimit.key.NullKeyParts;


/**
 * A SpEL expression of {@code ratelimit.routes.<name>}, evaluated over a {@link RouteRequest} in a read-only context
 * (its properties, map lookups and methods of the values; no types, beans or assignments). Checked at startup: an
 * expression that is not SpEL, or reads a property the request does not have, fails naming the property.
 */
final class RouteExpression {

    private static final SpelExpressionParser parser = new SpelExpressionParser();
    private static final RouteRequest SAMPLE = new RouteRequest("GET", "/", "127.0.0.1", null, name -> null,
            name -> null, Map.of());

    private final String property;
    private final String source;
    private final Expression expression;

    private RouteExpression(String property, String source, Expression expression) {
        this.property = property;
        this.source = source;
        this.expression = expression;
    }

    /**
     * @param property the property it was read from, e.g. {@code ratelimit.routes.api.key}
     * @return null when {@code source} is blank
     */
    static RouteExpression parse(String property, String source, String example) {
        if (source == null || source.isBlank()) {
            return null;
        }
        Expression expression;
        try {
            expression = parser.parseExpression(source);
        }
        catch (ParseException ex) {
            throw new InvalidConfigurationPropertyValueException(property, source, "not valid SpEL (" + ex.getMessage()
                    + "); correct it, e.g. " + example);
        }
        RouteExpression parsed = new RouteExpression(property, source, expression);
        parsed.check(example);
        return parsed;
    }

    /** Fails when the expression reads a property or calls a method no request has (on a request with no values). */
    private void check(String example) {
        try {
            evaluate(SAMPLE, Map.of("status", 200));
        }
        catch (SpelEvaluationException ex) {
            SpelMessage message = ex.getMessageCode();
            if (message == SpelMessage.PROPERTY_OR_FIELD_NOT_READABLE || message == SpelMessage.METHOD_NOT_FOUND) {
                throw invalid("reads what no request has (" + ex.getMessage() + ")", example + "; a request has method, "
                        + "path, remoteAddress, principal, header['..'], param['..'] and pathVariable['..']");
            }
        }
        catch (RuntimeException ex) {
            // a value that is null in the sample request: the expression itself is usable
        }
    }

    private InvalidConfigurationPropertyValueException invalid(String problem, String example) {
        return new InvalidConfigurationPropertyValueException(property, source, problem + "; correct it, e.g. "
                + example);
    }

    /** @throws RuntimeException whatever SpEL throws */
    Object evaluate(RouteRequest request, Map<String, Object> variables) {
        return expression.getValue(context(request, variables));
    }

    private static SimpleEvaluationContext context(RouteRequest request, Map<String, Object> variables) {
        SimpleEvaluationContext context = SimpleEvaluationContext.forReadOnlyDataBinding().withInstanceMethods()
                .withRootObject(request).build();
        variables.forEach(context::setVariable);
        return context;
    }

    /**
     * The operand whose missing value SpEL wrote into {@code value} as {@code null} (a parameter the request does not
     * have in {@code param['user'] + ':' + remoteAddress}), or null; see {@link NullKeyParts}.
     */
    String nullPart(String value, RouteRequest request) {
        return expression instanceof SpelExpression spel
                ? NullKeyParts.find(value, spel.getAST(), context(request, Map.of())) : null;
    }

    Object evaluate(RouteRequest request) {
        return evaluate(request, Map.of());
    }

    String source() {
        return source;
    }

    String property() {
        return property;
    }
}
