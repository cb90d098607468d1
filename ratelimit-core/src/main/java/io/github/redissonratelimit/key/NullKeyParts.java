package io.github.redissonratelimit.key;

import org.springframework.expression.EvaluationContext;
import org.springframework.expression.spel.ExpressionState;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.Elvis;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.OpPlus;
import org.springframework.expression.spel.ast.Ternary;

/**
 * Finds whether a key's text holds a {@code null} that SpEL wrote for a missing value: {@code 'order:' + #userId}
 * gives {@code order:null} when {@code userId} is null, which would limit every such call under one key. Only asked
 * when the key contains {@code null} (so that the common key costs nothing), it evaluates again the operands of the
 * {@code +} and {@code concat(..)} that produced the key, following the branch a conditional ({@code ? :}, {@code ?:}) took; a
 * key that really contains the text ({@code 'null'}, a user named {@code nullable}) has no null operand.
 */
public final class NullKeyParts {

    private static final String NULL = "null";

    private NullKeyParts() {
    }

    /**
     * The operand, as written, whose null value SpEL wrote into {@code key}; null when there is none.
     * @param ast the parsed expression that gave {@code key}
     * @param context the context it was evaluated in, to evaluate its operands again
     */
    public static String find(String key, SpelNode ast, EvaluationContext context) {
        if (!key.contains(NULL)) {
            return null;
        }
        try {
            return nullOperand(ast, new ExpressionState(context));
        }
        catch (RuntimeException ex) {
            return null; // an operand that fails now cannot be told apart: the key stays as it was computed
        }
    }

    private static String nullOperand(SpelNode node, ExpressionState state) {
        if (node instanceof OpPlus && node.getChildCount() == 2) {
            return firstNullOperand(state, node.getChild(0), node.getChild(1));
        }
        if (node instanceof Ternary) {
            Object condition = node.getChild(0).getValue(state);
            return nullOperand(node.getChild(Boolean.TRUE.equals(condition) ? 1 : 2), state);
        }
        if (node instanceof Elvis) {
            Object first = node.getChild(0).getValue(state);
            return first == null || "".equals(first) ? nullOperand(node.getChild(1), state)
                    : nullOperand(node.getChild(0), state);
        }
        if (node instanceof CompoundExpression && node.getChildCount() == 2
                && node.getChild(1) instanceof MethodReference method && method.getName().equals("concat")
                && method.getChildCount() == 1) {
            // a.concat(b): the argument is evaluated against the root, as here
            return firstNullOperand(state, node.getChild(0), method.getChild(0));
        }
        return null;
    }

    private static String firstNullOperand(ExpressionState state, SpelNode... operands) {
        for (SpelNode operand : operands) {
            Object value = operand.getValue(state);
            if (value == null) {
                return operand.toStringAST();
            }
            if (value instanceof String text && text.contains(NULL)) {
                String inner = nullOperand(operand, state);
                if (inner != null) {
                    return inner;
                }
            }
        }
        return null;
    }
}
