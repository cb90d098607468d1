package io.github.redissonratelimit.key;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/** The shortcut gives what SpEL gives, or steps aside: compared on every expression and argument below. */
class DirectFormTest {

    @SuppressWarnings("unused")
    static void target(Object userId, Object region, long count) {
    }

    private static final List<String> EXPRESSIONS = List.of("#userId", "#p0", "#a1", "'user:' + #userId",
            "#userId + ':' + #region", "'a:' + #userId + ':' + #region", "#userId + #region", "#count + 'x'",
            "'k' + (#userId + #region)", "#userId + ('x' + #region)", "#root", "#this", "#p5", "'lit'", "#unknown",
            "#userId.toString()");

    private static final List<Object> VALUES = Arrays.asList("ann", "", 42, 42L, (short) 7, (byte) 1, true, 'c',
            UUID.fromString("123e4567-e89b-12d3-a456-426614174000"), 1.5, null, Thread.State.NEW, List.of(1, 2));

    @Test
    void everyShapeGivesWhatSpelGivesOrStepsAside() throws Exception {
        Method method = DirectFormTest.class.getDeclaredMethod("target", Object.class, Object.class, long.class);
        String[] names = { "userId", "region", "count" };
        int direct = 0;
        for (String source : EXPRESSIONS) {
            SpelExpression expression = new SpelExpressionParser().parseRaw(source);
            DirectForm form = DirectForm.of(expression.getAST(), names, 3);
            for (Object first : VALUES) {
                for (Object second : VALUES) {
                    Object[] args = { first, second, 3L };
                    if (form == null) {
                        continue;
                    }
                    Object shortcut = form.evaluate(args);
                    if (shortcut == DirectForm.NOT_DIRECT) {
                        continue;
                    }
                    direct++;
                    KeyEvaluationContext context = new KeyEvaluationContext(
                            new KeyExpressionRoot(method, args, null, DirectFormTest.class), names, null);
                    assertThat(shortcut).as("%s with %s, %s", source, first, second)
                            .isEqualTo(expression.getValue(context));
                }
            }
        }
        assertThat(direct).as("the shortcut answered some calls").isGreaterThan(500);
    }

    @Test
    void onlyArgumentsAndTextTakeTheShortcut() {
        String[] names = { "userId", "region", "count" };
        for (String source : List.of("#root", "#this", "#p5", "#unknown", "#userId.toString()", "#userId + #region",
                "#count + 1", "T(java.lang.Math).abs(#count)")) {
            assertThat(DirectForm.of(new SpelExpressionParser().parseRaw(source).getAST(), names, 3)).as(source).isNull();
        }
        assertThat(DirectForm.of(new SpelExpressionParser().parseRaw("'u:' + #userId").getAST(), names, 3)).isNotNull();
        assertThat(DirectForm.of(new SpelExpressionParser().parseRaw("#userId").getAST(), null, 3))
                .as("no parameter names: only #p0/#a0").isNull();
    }

    @Test
    void aTextLongerThanSpelConcatenatesGoesToSpelWhichRefusesIt() throws Exception {
        Method method = DirectFormTest.class.getDeclaredMethod("target", Object.class, Object.class, long.class);
        String[] names = { "userId", "region", "count" };
        SpelExpression expression = new SpelExpressionParser().parseRaw("'user:' + #userId");
        DirectForm form = DirectForm.of(expression.getAST(), names, 3);
        for (int length : new int[] { DirectForm.SPEL_MAX_CONCATENATION - 5, DirectForm.SPEL_MAX_CONCATENATION - 4 }) {
            Object[] args = { "x".repeat(length), null, 1L };
            KeyEvaluationContext context = new KeyEvaluationContext(
                    new KeyExpressionRoot(method, args, null, DirectFormTest.class), names, null);
            Object shortcut = form.evaluate(args);
            if (length + 5 <= DirectForm.SPEL_MAX_CONCATENATION) {
                assertThat(shortcut).isEqualTo(expression.getValue(context));
            }
            else {
                assertThat(shortcut).isSameAs(DirectForm.NOT_DIRECT);
                assertThatThrownBy(() -> expression.getValue(context)).hasMessageContaining("EL1078E");
            }
        }
    }
}
