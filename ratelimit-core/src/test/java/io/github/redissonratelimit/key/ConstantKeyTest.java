package io.github.redissonratelimit.key;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;

import org.junit.jupiter.api.Test;

/** A key of text alone is the same for every call, and is what each call evaluates to; any other key is not. */
class ConstantKeyTest {

    @SuppressWarnings("unused")
    static void target(String user, int count) {
    }

    @Test
    void textAloneIsConstantAndEvaluatesToItself() throws Exception {
        KeyExpression key = parse("'checkout:eu'");

        assertThat(key.constant()).isEqualTo("checkout:eu");
        assertThat(key.evaluate(null, ConstantKeyTest.class, new Object[] { "ann", 1 })).isSameAs(key.constant());
        assertThat(key.evaluate(null, ConstantKeyTest.class, new Object[] { "bob", 2 })).isSameAs(key.constant());
    }

    @Test
    void aKeyThatReadsTheCallOrFailsIsNotConstant() throws Exception {
        for (String source : new String[] { "#user", "'user:' + #user", "#count + 'x'", "'a' + 'b'.toUpperCase()",
                "#root.method.name", "T(java.lang.System).nanoTime()", "' '" }) {
            assertThat(parse(source).constant()).as(source).isNull();
        }
    }

    private static KeyExpression parse(String source) throws Exception {
        Method method = ConstantKeyTest.class.getDeclaredMethod("target", String.class, int.class);
        return new KeyExpressionParser().parse(source, method, "ConstantKeyTest.target");
    }
}
