package io.github.redissonratelimit.operation;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.springframework.expression.ParseException;

import io.github.redissonratelimit.InvalidRateLimitException;
import io.github.redissonratelimit.key.ChargeCondition;
import io.github.redissonratelimit.key.ConditionExpression;
import io.github.redissonratelimit.key.DeclaredExpression;
import io.github.redissonratelimit.key.KeyExpression;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.key.ValueExpression;

/**
 * Parses the SpEL attributes of a declaration ({@code key}, {@code condition}, {@code skipIf}, {@code cost}) for the
 * method they belong to, and refuses what could never evaluate: invalid SpEL, variables the method does not
 * have, parameters written without {@code #}.
 */
final class ExpressionAttributeParser {

    private final KeyExpressionParser parser;

    ExpressionAttributeParser(KeyExpressionParser parser) {
        this.parser = parser;
    }

    /** @return {@code null} when no key is declared */
    KeyExpression key(String expression, LimitedMethod method) {
        return parse(expression, "key", "'order:' + #userId", method,
                "use a constant, a @bean reference or remove the key",
                () -> parser.parse(expression, method.method(), method.description()));
    }

    /** @return {@code null} when the attribute is not declared */
    ConditionExpression condition(String expression, String attribute, LimitedMethod method) {
        return parse(expression, attribute, "#userId != 'admin'", method, "use a constant or a @bean reference",
                () -> parser.parseCondition(expression, attribute, method.method(), method.description()));
    }

    /**
     * Parses an attribute whose value is computed per call ({@code cost}).
     * @param example a correct expression for the error message
     * @return {@code null} when the attribute is not declared
     */
    ValueExpression value(String expression, String attribute, String example, LimitedMethod method) {
        return parse(expression, attribute, example, method, "use a constant or a @bean reference",
                () -> parser.parseValue(expression, attribute, method.method(), method.description()));
    }

    /** @return {@code null} when no {@code chargeWhen} is declared */
    ChargeCondition chargeWhen(String expression, LimitedMethod method) {
        return parse(expression, "chargeWhen", "#exception != null", method, "use #result, #exception or a @bean reference",
                () -> parser.parseChargeCondition(expression, method.method(), method.description()));
    }

    private static <E extends DeclaredExpression> E parse(String expression, String attribute, String example,
            LimitedMethod method, String withoutParameters, Supplier<E> parse) {
        if (expression == null) {
            return null;
        }
        E parsed;
        try {
            parsed = parse.get();
        }
        catch (ParseException ex) {
            throw notSpel(attribute, expression, example, method.description(), ex);
        }
        return resolvable(parsed, attribute, method, withoutParameters);
    }

    private static InvalidRateLimitException notSpel(String attribute, String expression, String example,
            String description, ParseException ex) {
        return new InvalidRateLimitException(description, attribute, "\"" + expression + "\" is not valid SpEL ("
                + ex.getMessage() + ")", "correct the expression, e.g. " + attribute + " = \"" + example
                        + "\"; string literals need single quotes", ex);
    }

    /**
     * @param withoutParameters the fix when the method has no parameters to refer to
     * @throws InvalidRateLimitException naming what the expression reads that no call has, and what it can read
     */
    private static <E extends DeclaredExpression> E resolvable(E expression, String attribute, LimitedMethod method,
            String withoutParameters) {
        List<String> variables = expression.unknownVariables();
        List<String> bareNames = expression.unknownRootProperties();
        if (variables.isEmpty() && bareNames.isEmpty()) {
            return expression;
        }
        String[] parameters = expression.parameterNames();
        if (variables.isEmpty() && parameters != null && List.of(parameters).containsAll(bareNames)) {
            throw new InvalidRateLimitException(method.description(), attribute, "\"" + expression.source()
                    + "\" reads " + String.join(", ", bareNames) + " without '#': names without '#' are properties "
                    + "of the root object (methodName, args, target, ...), not parameters, and every call would fail "
                    + "(SpEL EL1008E)",
                    "write " + asVariables(bareNames.stream()), null);
        }
        List<String> unknown = new ArrayList<>(variables.stream().map(variable -> "#" + variable).toList());
        unknown.addAll(bareNames);
        int count = method.method().getParameterCount();
        String indexes = count == 1 ? "#p0" : "#p0..#p" + (count - 1);
        String fix = count == 0 ? "the method has no parameters: " + withoutParameters
                : "use one of its parameters: " + (parameters == null ? indexes
                        + " (parameter names are not available: compile with -parameters to use them)"
                        : asVariables(Stream.of(parameters)) + ", " + indexes);
        throw new InvalidRateLimitException(method.description(), attribute, "\"" + expression.source()
                + "\" refers to " + String.join(", ", unknown) + ", which the method does not have", fix, null);
    }

    private static String asVariables(Stream<String> names) {
        return names.map(name -> "#" + name).collect(Collectors.joining(", "));
    }
}
