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

/**
 * Pure logic: how a policy's shadow and permits combine with the annotation's shadow and cost, and how tiers are
 * built from a policy and picked per call.
 */
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

        @RateLimit(name = "api", key = "#apiKey", rate = 5, interval = 60, tier = "#plan")
        public void api(String apiKey, String plan) {
        }

        @RateLimit(key = "#apiKey", rate = 5, tier = "#plan")
        public void unnamedTiers(String apiKey, String plan) {
        }
    }

    private static PolicyValues tiered(Map<String, PolicyValues> tiers) {
        return new PolicyValues(20L, null, null, null, true, null, null, tiers);
    }

    private static PolicyValues tier(Long rate, Long permits) {
        return new PolicyValues(rate, null, null, permits, null);
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

    @Test
    void eachTierIsALimitOfItsOwnAndAnUnknownTierGetsThePolicysValues() {
        RateLimitOperation api = operation(Map.of("api", tiered(Map.of("free", tier(2L, null), "pro", tier(1000L, 4L)))),
                PolicyValues.NONE, "api");
        Service target = new Service();

        RateLimitOperation free = api.forCall(target, Service.class, new Object[] { "k1", "free" });
        RateLimitOperation pro = api.forCall(target, Service.class, new Object[] { "k2", "pro" });
        assertThat(free.spec().rate()).isEqualTo(2);
        assertThat(free.spec().interval()).isEqualTo(java.time.Duration.ofMinutes(1));
        assertThat(free.permits()).isEqualTo(1);
        assertThat(pro.spec().rate()).isEqualTo(1000);
        assertThat(pro.permits()).isEqualTo(4);
        assertThat(pro.name()).isEqualTo("api");
        assertThat(pro.displayName()).isEqualTo("api");
        assertThat(api.forCall(target, Service.class, new Object[] { "k3", "enterprise" })).isSameAs(api);
        assertThat(api.forCall(target, Service.class, new Object[] { "k3", null })).isSameAs(api);
        assertThat(api.spec().rate()).isEqualTo(20);
    }

    @Test
    void tiersAreValidatedAtStartup() {
        assertThatThrownBy(() -> operation(Map.of("api", tiered(Map.of("free", tier(2L, 3L)))), PolicyValues.NONE,
                "api")).isInstanceOfSatisfying(InvalidRateLimitException.class,
                        ex -> assertThat(ex).hasMessageContaining("ratelimit.policies.api.tiers.free.permits (3) exceeds "
                                + "ratelimit.policies.api.tiers.free.rate (2)"));
        assertThatThrownBy(() -> operation(Map.of("api", tiered(Map.of())), PolicyValues.NONE, "api"))
                .isInstanceOfSatisfying(InvalidRateLimitException.class, ex -> {
                    assertThat(ex.getAttribute()).isEqualTo("tier");
                    assertThat(ex.getProblem()).isEqualTo("\"#plan\" is set, but policy 'api' configures no tiers");
                    assertThat(ex.getFix()).isEqualTo("configure ratelimit.policies.api.tiers.<tier>.rate, or remove "
                            + "tier");
                });
        assertThatThrownBy(() -> operation(Map.of(), PolicyValues.NONE, "unnamedTiers"))
                .isInstanceOfSatisfying(InvalidRateLimitException.class, ex -> assertThat(ex.getProblem())
                        .isEqualTo("\"#plan\" is set, but the limit has no name, so no policy can configure its tiers"));
    }
}
