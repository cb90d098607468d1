package io.github.redissonratelimit.key;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

/** Which keys hold a null value SpEL wrote as {@code null}, and which only the text: pure logic over SpEL. */
class NullKeyPartsTest {

    private static String nullPart(String source, Map<String, String> param) {
        SpelExpression expression = new SpelExpressionParser().parseRaw(source);
        SimpleEvaluationContext context = SimpleEvaluationContext.forReadOnlyDataBinding().withInstanceMethods()
                .withRootObject(new Request(param)).build();
        String key = String.valueOf(expression.getValue(context));
        return NullKeyParts.find(key, expression.getAST(), context);
    }

    public record Request(Map<String, String> param) {

        public Map<String, String> getParam() {
            return param;
        }
    }

    @Test
    void aMissingValueConcatenatedAnywhereIsFound() {
        Map<String, String> none = new HashMap<>();
        assertThat(nullPart("param['user'] + ':' + 'x'", none)).isEqualTo("param['user']");
        assertThat(nullPart("'a:' + param['user']", none)).isEqualTo("param['user']");
        assertThat(nullPart("'a:' + (param['user'] + ':b')", none)).as("inside parentheses").isEqualTo("param['user']");
        assertThat(nullPart("'a:'.concat(param['user'] + ':b')", none)).as("inside concat(..)")
                .isEqualTo("param['user']");
        assertThat(nullPart("param['plan'] == null ? 'free:' + param['user'] : 'x'", none)).as("the branch taken")
                .isEqualTo("param['user']");
        assertThat(nullPart("param['id'] ?: 'anon:' + param['user']", none)).as("the Elvis' fallback")
                .isEqualTo("param['user']");
    }

    @Test
    void theTextNullIsNoNullValue() {
        Map<String, String> values = new HashMap<>(Map.of("user", "nullable", "plan", "null"));
        assertThat(nullPart("param['user'] + ':' + param['plan']", values)).isNull();
        assertThat(nullPart("'null:' + param['user']", values)).isNull();
        assertThat(nullPart("param['missing'] == null ? 'null:free' : 'x'", values)).as("the branch not taken")
                .isNull();
        assertThat(nullPart("param['user'] ?: 'x:' + param['missing']", values)).as("the Elvis' value").isNull();
        assertThat(nullPart("param['user'].toUpperCase() + ':x'", values)).isNull();
    }
}
