package io.github.redissonratelimit.key;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.OpPlus;
import org.springframework.expression.spel.ast.StringLiteral;
import org.springframework.expression.spel.ast.VariableReference;

/**
 * The shapes most key expressions have, read straight from the call's arguments without building an evaluation
 * context per call: a parameter ({@code #userId}, {@code #p0}) and a concatenation of text literals and parameters
 * ({@code 'order:submit:' + #userId}). An argument whose text SpEL might write differently (null, or a type
 * other than {@link String}, the boxed integers, {@link Boolean}, {@link Character} and {@link UUID}) sends the
 * call to SpEL, which then decides exactly as without this shortcut; so do a sum of two parameters and a text longer
 * than SpEL concatenates.
 */
final class DirectForm {

    /**
     * SpEL refuses a concatenation longer than this ({@code EL1078E}, {@code OpPlus}); such a key goes to SpEL so that
     * it fails as it would without the shortcut (HTTP 400 for the caller).
     */
    static final int SPEL_MAX_CONCATENATION = 100_000;

    /** Returned by {@link #evaluate} when SpEL must evaluate the call. */
    static final Object NOT_DIRECT = new Object();

    /** Text literals ({@link String}) and argument indexes ({@link Integer}), left to right. */
    private final Object[] parts;

    private DirectForm(List<Object> parts) {
        this.parts = parts.toArray();
    }

    /** The direct form of {@code ast}, or null when it has none. */
    static DirectForm of(SpelNode ast, String[] parameterNames, int parameterCount) {
        List<Object> parts = new ArrayList<>();
        if (!collect(ast, parameterNames, parameterCount, parts)) {
            return null;
        }
        // a concatenation must start with text, or SpEL would add two numbers before meeting it
        if (parts.size() > 1 && !(parts.get(0) instanceof String) && !(parts.get(1) instanceof String)) {
            return null;
        }
        return new DirectForm(parts);
    }

    private static boolean collect(SpelNode node, String[] names, int count, List<Object> parts) {
        // only a + b + c as SpEL parses it, ((a + b) + c): a parenthesized sum on the right is added first
        if (node instanceof OpPlus && node.getChildCount() == 2 && !(node.getChild(1) instanceof OpPlus)) {
            return collect(node.getChild(0), names, count, parts) && collect(node.getChild(1), names, count, parts);
        }
        if (node instanceof StringLiteral literal) {
            parts.add(String.valueOf(literal.getLiteralValue().getValue()));
            return true;
        }
        if (node instanceof VariableReference) {
            int index = indexOf(node.toStringAST().substring(1), names, count);
            if (index >= 0) {
                parts.add(index);
                return true;
            }
        }
        return false;
    }

    /** The argument {@code KeyEvaluationContext} would give for {@code #name}, or -1 (e.g. {@code #root}). */
    private static int indexOf(String name, String[] names, int count) {
        if (name.equals("root") || name.equals("this")) {
            return -1;
        }
        if (names != null) {
            for (int i = 0; i < names.length; i++) {
                if (names[i].equals(name)) {
                    return i;
                }
            }
        }
        int index = KeyEvaluationContext.indexVariable(name);
        return index < count ? index : -1;
    }

    /** The key of every call when the expression is one text literal; else null. */
    String literal() {
        return parts.length == 1 && parts[0] instanceof String literal ? literal : null;
    }

    Object evaluate(Object[] args) {
        if (parts.length == 1) {
            if (parts[0] instanceof String literal) {
                return literal;
            }
            Object value = args[(Integer) parts[0]];
            return value == null ? NOT_DIRECT : value;
        }
        StringBuilder text = new StringBuilder(64);
        for (Object part : parts) {
            if (part instanceof String literal) {
                text.append(literal);
            }
            else {
                Object value = args[(Integer) part];
                if (!writtenAsToString(value)) {
                    return NOT_DIRECT;
                }
                text.append(value);
            }
            if (text.length() > SPEL_MAX_CONCATENATION) {
                return NOT_DIRECT;
            }
        }
        return text.toString();
    }

    private static boolean writtenAsToString(Object value) {
        return value instanceof String || value instanceof Long || value instanceof Integer || value instanceof Short
                || value instanceof Byte || value instanceof Boolean || value instanceof Character || value instanceof UUID;
    }
}
