package io.github.redissonratelimit.key;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Pure logic: which names in an expression no call of its method can resolve, found when it is parsed. */
class UnresolvedReferencesTest {

    record Item(String name, long price) {
        public String getName() {
            return name;
        }

        public long getPrice() {
            return price;
        }
    }

    public static String limited(String first, String second, long amount, List<Item> items, Map<String, String> map) {
        return first;
    }

    private static final Method LIMITED = method();

    private static Method method() {
        try {
            return UnresolvedReferencesTest.class.getMethod("limited", String.class, String.class, long.class,
                    List.class, Map.class);
        }
        catch (NoSuchMethodException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static KeyExpression parse(String expression) {
        return new KeyExpressionParser().parse(expression, LIMITED, "limited");
    }

    @Test
    void parametersWrittenWithoutHashAreUnresolvedRootProperties() {
        assertThat(parse("first").unknownRootProperties()).containsExactly("first");
        assertThat(parse("first + ':' + second").unknownRootProperties()).containsExactly("first", "second");
        assertThat(parse("#first.concat(second)").unknownRootProperties()).containsExactly("second");
        assertThat(parse("amount > 100 ? 'big' : #first").unknownRootProperties()).containsExactly("amount");
        assertThat(parse("#items[amount]").unknownRootProperties()).isEmpty();
        assertThat(parse("first").unknownVariables()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = { "methodName", "method.name + args[0]", "target == null ? targetClass : 'x'",
            "#first.length()", "#items.?[price > 10].size()", "#items.![name]", "{first: #first}['first']",
            "#map[first]", "#map['k'] ?: 'none'", "T(String).valueOf(#amount)", "#root.methodName", "#this.args",
            "'constant'", "@tenants.current()" })
    void whatTheRootObjectOrTheElementHasIsResolved(String expression) {
        assertThat(parse(expression).unknownRootProperties()).isEmpty();
    }

    @Test
    void theRootPropertiesReadAtEveryCall() {
        KeyExpression key = parse("methodName + ':' + args.length + ':' + #items.![name]");

        assertThat(key.evaluate(this, UnresolvedReferencesTest.class,
                new Object[] { "a", "b", 1L, List.of(new Item("x", 1)), Map.of() })).isEqualTo("limited:5:x");
    }
}
