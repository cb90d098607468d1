package io.github.redissonratelimit.operation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.InvalidRateLimitException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.operation.AnnotationRateLimitOperationSourceTest.MapPolicies;

/** Pure logic: how a policy's shadow and permits combine with the annotation's shadow and cost. */
class CostAndShadowPoliciesTest {

    static class Service {
        @RateLimit(name = "rollout", rate = 5, interval = 60)
        public void enforced() {
        }

        @RateLimit(name = "trial", rate = 5, interval = 60, shadow = true)
        public void shadowed() {
        }

        @RateLimit(name = "bulk", rate = 10, interval = 60, cost = "#items.size()")
        public void bulk(List<String> items) {
        }
    }

    private static RateLimitOperation operation(Map<String, PolicyValues> policies, PolicyValues defaults,
            String method) {
        java.lang.reflect.Method target = Arrays.stream(Service.class.getMethods())
                .filter(m -> m.getName().equals(method)).findFirst().orElseThrow();
        List<RateLimitOperation> operations = new AnnotationRateLimitOperationSource(new KeyExpressionParser(),
                new MapPolicies(policies, defaults, false)).getOperations(target, Service.class);
        assertThat(operations).hasSize(1);
        return operations.get(0);
    }

    private static PolicyValues shadow(Boolean shadow) {
        return new PolicyValues(null, null, null, null, true, null, shadow);
    }

    @Test
    void aPolicyTurnsShadowModeOnOrOffWhateverTheAnnotationSays() {
        assertThat(operation(Map.of(), PolicyValues.NONE, "enforced").shadow()).isFalse();
        assertThat(operation(Map.of(), PolicyValues.NONE, "shadowed").shadow()).isTrue();
        assertThat(operation(Map.of("rollout", shadow(true)), PolicyValues.NONE, "enforced").shadow()).isTrue();
        assertThat(operation(Map.of("trial", shadow(false)), PolicyValues.NONE, "shadowed").shadow()).isFalse();
        assertThat(operation(Map.of("trial", shadow(null)), PolicyValues.NONE, "shadowed").shadow()).isTrue();
        assertThat(operation(Map.of("rollout", shadow(true)), PolicyValues.NONE, "enforced").toString())
                .contains(", shadow)");
    }

    @Test
    void aPolicysPermitsCannotReplaceACostExpression() {
        PolicyValues permits = new PolicyValues(null, null, null, 2L, true);

        assertThatThrownBy(() -> operation(Map.of("bulk", permits), PolicyValues.NONE, "bulk"))
                .isInstanceOfSatisfying(InvalidRateLimitException.class, ex -> {
                    assertThat(ex.getMethod()).contains("Service.bulk(List)");
                    assertThat(ex.getAttribute()).isEqualTo("ratelimit.policies.bulk.permits");
                    assertThat(ex.getProblem()).isEqualTo("(2) is set, but the annotation computes the permits of "
                            + "each call with cost = \"#items.size()\"");
                    assertThat(ex.getFix()).isEqualTo("remove permits from the policy, or cost from the annotation");
                });
    }

    @Test
    void theDefaultPermitsDoNotApplyToALimitWithACost() {
        RateLimitOperation bulk = operation(Map.of(), new PolicyValues(null, null, null, 3L, null), "bulk");

        assertThat(bulk.cost().source()).isEqualTo("#items.size()");
        assertThat(bulk.permitsFor(new Service(), Service.class, new Object[] { List.of("a", "b") })).isEqualTo(2);
        assertThat(bulk.toString()).contains("cost=#items.size()");
    }
}
