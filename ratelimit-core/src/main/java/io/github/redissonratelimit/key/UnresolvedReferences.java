package io.github.redissonratelimit.key;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.springframework.expression.AccessException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.Indexer;
import org.springframework.expression.spel.ast.InlineMap;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.Projection;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.Selection;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.support.ReflectivePropertyAccessor;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * Finds, once when an expression is parsed, what it reads that no call of its method will have, so the
 * declaration fails at startup instead of at every call.
 */
final class UnresolvedReferences {

    private static final ReflectivePropertyAccessor ROOT_PROPERTIES = new ReflectivePropertyAccessor();
    private static final KeyExpressionRoot SAMPLE_ROOT = new KeyExpressionRoot(null, new Object[0], null, null);

    private UnresolvedReferences() {
    }

    /**
     * {@code #name} variables that are neither a parameter name, {@code p<n>}/{@code a<n>} within the
     * parameter count, {@code #root} nor {@code #this}: they would always be null.
     */
    static List<String> variables(SpelNode ast, String[] parameterNames, int parameterCount) {
        return variables(ast, parameterNames, parameterCount, List.of());
    }

    /** Like {@link #variables(SpelNode, String[], int)}, with {@code extra} variables the call also has. */
    static List<String> variables(SpelNode ast, String[] parameterNames, int parameterCount, List<String> extra) {
        Set<String> referenced = new LinkedHashSet<>();
        collectVariables(ast, referenced);
        List<String> unknown = new ArrayList<>();
        for (String variable : referenced) {
            int index = KeyEvaluationContext.indexVariable(variable);
            boolean known = variable.equals("root") || variable.equals("this") || extra.contains(variable)
                    || (parameterNames != null && Arrays.asList(parameterNames).contains(variable))
                    || (index >= 0 && index < parameterCount);
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
     * Names read without {@code #} from the root object ({@link KeyExpressionRoot}) that it does not have,
     * typically a parameter written without {@code #}: SpEL fails on them (EL1008E) at every call.
     */
    static List<String> rootProperties(SpelNode ast) {
        Set<String> read = new LinkedHashSet<>();
        collectRootProperties(ast, read);
        return read.stream().filter(name -> !isRootProperty(name)).toList();
    }

    /** Walks only the nodes SpEL evaluates against the root object. */
    private static void collectRootProperties(SpelNode node, Set<String> into) {
        if (node instanceof PropertyOrFieldReference property) {
            into.add(property.getName());
            return;
        }
        // inside a selection or projection a bare name is a property of each element; map keys are texts
        if (node instanceof Selection || node instanceof Projection || node instanceof InlineMap) {
            return;
        }
        // a bare name as the index (#map[key]) is a text, not a property
        if (node instanceof Indexer && node.getChild(0) instanceof PropertyOrFieldReference) {
            return;
        }
        if (node instanceof CompoundExpression) {
            collectRootProperties(node.getChild(0), into);
            for (int i = 1; i < node.getChildCount(); i++) {
                collectInLaterStep(node.getChild(i), into);
            }
            return;
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            collectRootProperties(node.getChild(i), into);
        }
    }

    /**
     * In {@code a.b(c)[d]} only {@code a} is read from the root object; {@code b} is read from {@code a}, but
     * method arguments and indexes are evaluated against the root object again.
     */
    private static void collectInLaterStep(SpelNode step, Set<String> into) {
        if (step instanceof MethodReference) {
            for (int i = 0; i < step.getChildCount(); i++) {
                collectRootProperties(step.getChild(i), into);
            }
        }
        else if (step instanceof Indexer) {
            collectRootProperties(step, into);
        }
    }

    private static boolean isRootProperty(String name) {
        try {
            return ROOT_PROPERTIES.canRead(new StandardEvaluationContext(), SAMPLE_ROOT, name);
        }
        catch (AccessException ex) {
            return false;
        }
    }
}
