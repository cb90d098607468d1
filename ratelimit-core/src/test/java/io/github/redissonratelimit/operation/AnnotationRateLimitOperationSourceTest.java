package io.github.redissonratelimit.operation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.InvalidRateLimitException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.annotation.RateLimitMode;

/** Pure logic: how annotation, named policy and defaults combine, and what is rejected. */
class AnnotationRateLimitOperationSourceTest {

    /** Policies as plain data, described the way the Boot properties describe them. */
    record MapPolicies(Map<String, PolicyValues> byName, PolicyValues defaults, boolean required)
            implements RateLimitPolicies {

        @Override
        public PolicyValues policy(String name) {
            return byName.get(name);
        }

        @Override
        public Set<String> names() {
            return byName.keySet();
        }

        @Override
        public boolean policiesRequired() {
            return required;
        }

        @Override
        public String describePolicyValue(String name, String attribute) {
            return "ratelimit.policies." + name + "." + attribute;
        }

        @Override
        public String describeDefault(String attribute) {
            return "ratelimit.defaults." + attribute;
        }
    }

    static class Service {
        @RateLimit(name = "order-submit", key = "#userId", rate = 5, interval = 60)
        public void named(String userId) {
        }

        @RateLimit(name = "from-properties-only")
        public void onlyName() {
        }

        @RateLimit(rate = 7)
        public void rateOnly() {
        }

        @RateLimit(rate = 7, mode = RateLimitMode.OVERALL)
        public void explicitOverall() {
        }

        @RateLimit
        public void nothing() {
        }

        @RateLimit(name = "bulk", rate = 10, permits = 4)
        public void bulk() {
        }

        @RateLimit(key = "#p0 + #a1", rate = 1)
        public void indexes(String first, String second) {
        }

        @RateLimit(key = "#p2", rate = 1)
        public void indexOutOfRange(String first, String second) {
        }

        @RateLimit(key = "#p1", rate = 1)
        public void indexOutOfRangeOfOne(String only) {
        }

        @RateLimit(key = "#root.methodName + #this.toString()", rate = 1)
        public void rootAndThis() {
        }

        @RateLimit(key = "methodName + ':' + args[0] + #p0.length()", rate = 1)
        public void rootProperties(String first) {
        }

        @RateLimit(key = "first + second", rate = 1)
        public void parametersWithoutHash(String first, String second) {
        }

        @RateLimit(key = "#first + 'x'.concat(secnd)", rate = 1)
        public void misspeltWithoutHash(String first, String second) {
        }

        @RateLimit(rate = 1, skipIf = "amount > 100")
        public void conditionWithoutHash(long amount) {
        }
    }

    private static List<RateLimitOperation> operations(RateLimitPolicies policies, String method) {
        Method target = java.util.Arrays.stream(Service.class.getMethods())
                .filter(m -> m.getName().equals(method)).findFirst().orElseThrow();
        return new AnnotationRateLimitOperationSource(new io.github.redissonratelimit.key.KeyExpressionParser(), policies)
                .getOperations(target, Service.class);
    }

    private static RateLimitOperation operation(RateLimitPolicies policies, String method) {
        List<RateLimitOperation> operations = operations(policies, method);
        assertThat(operations).hasSize(1);
        return operations.get(0);
    }

    private static MapPolicies policies(Map<String, PolicyValues> byName) {
        return new MapPolicies(byName, PolicyValues.NONE, false);
    }

    @Test
    void annotationAloneGivesItsValuesAndBuiltInDefaults() {
        RateLimitOperation operation = operation(RateLimitPolicies.NONE, "rateOnly");

        assertThat(operation.spec().rate()).isEqualTo(7);
        assertThat(operation.spec().interval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(operation.spec().mode()).isEqualTo(RateLimitMode.OVERALL);
        assertThat(operation.permits()).isEqualTo(1);
        assertThat(operation.source()).isEqualTo("annotation");
        assertThat(operation.policyName()).isNull();
    }

    @Test
    void aPolicyOverridesTheAnnotation() {
        MapPolicies policies = policies(Map.of("order-submit",
                new PolicyValues(20L, Duration.ofMinutes(5), RateLimitMode.PER_CLIENT, null, true)));

        RateLimitOperation operation = operation(policies, "named");

        assertThat(operation.spec().rate()).isEqualTo(20);
        assertThat(operation.spec().interval()).isEqualTo(Duration.ofMinutes(5));
        assertThat(operation.spec().mode()).isEqualTo(RateLimitMode.PER_CLIENT);
        assertThat(operation.permits()).isEqualTo(1);
        assertThat(operation.name()).isEqualTo("order-submit");
        assertThat(operation.policyName()).isEqualTo("order-submit");
        assertThat(operation.source()).isEqualTo("policy");
    }

    @Test
    void aPolicyCanSupplyEverything() {
        MapPolicies policies = policies(Map.of("from-properties-only",
                new PolicyValues(3L, Duration.ofSeconds(10), null, 2L, true)));

        RateLimitOperation operation = operation(policies, "onlyName");

        assertThat(operation.spec().rate()).isEqualTo(3);
        assertThat(operation.spec().interval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(operation.permits()).isEqualTo(2);
    }

    @Test
    void defaultsFillOnlyWhatNothingElseSets() {
        MapPolicies policies = new MapPolicies(Map.of(),
                new PolicyValues(99L, Duration.ofMinutes(1), RateLimitMode.PER_CLIENT, 1L, null), false);

        RateLimitOperation rateOnly = operation(policies, "rateOnly");
        assertThat(rateOnly.spec().rate()).isEqualTo(7);
        assertThat(rateOnly.spec().interval()).isEqualTo(Duration.ofMinutes(1));
        assertThat(rateOnly.spec().mode()).isEqualTo(RateLimitMode.PER_CLIENT);
        assertThat(rateOnly.source()).isEqualTo("annotation+defaults");

        // a numeric attribute left at 0 counts as not set (documented)
        assertThat(operation(policies, "nothing").spec().rate()).isEqualTo(99);
    }

    @Test
    void aModeWrittenOnTheAnnotationWinsOverTheDefaultsEvenOverall() {
        MapPolicies policies = new MapPolicies(Map.of(),
                new PolicyValues(null, null, RateLimitMode.PER_CLIENT, null, null), false);

        RateLimitOperation explicitOverall = operation(policies, "explicitOverall");
        assertThat(explicitOverall.spec().mode()).isEqualTo(RateLimitMode.OVERALL);
        assertThat(explicitOverall.source()).isEqualTo("annotation");
        assertThat(operation(policies, "rateOnly").spec().mode()).isEqualTo(RateLimitMode.PER_CLIENT);
        assertThat(operation(RateLimitPolicies.NONE, "rateOnly").spec().mode()).isEqualTo(RateLimitMode.OVERALL);
    }

    @Test
    void aPolicyModeWinsOverTheAnnotationUnlessItIsDefault() {
        assertThat(operation(policies(Map.of("order-submit", new PolicyValues(null, null, RateLimitMode.PER_CLIENT,
                null, true))), "named").spec().mode()).isEqualTo(RateLimitMode.PER_CLIENT);
        MapPolicies unset = new MapPolicies(Map.of("order-submit", new PolicyValues(null, null, RateLimitMode.DEFAULT,
                null, true)), new PolicyValues(null, null, RateLimitMode.PER_CLIENT, null, null), false);
        assertThat(operation(unset, "named").spec().mode()).isEqualTo(RateLimitMode.PER_CLIENT);
    }

    @Test
    void defaultIsNotAModeTheDefaultsCanHave() {
        MapPolicies policies = new MapPolicies(Map.of(),
                new PolicyValues(null, null, RateLimitMode.DEFAULT, null, null), false);

        assertThatThrownBy(() -> operation(policies, "rateOnly"))
                .isInstanceOfSatisfying(InvalidRateLimitException.class, ex -> {
                    assertThat(ex.getAttribute()).isEqualTo("ratelimit.defaults.mode");
                    assertThat(ex.getFix()).contains("OVERALL or PER_CLIENT");
                });
    }

    @Test
    void aDisabledPolicyRemovesTheLimit() {
        MapPolicies policies = policies(Map.of("order-submit", new PolicyValues(null, null, null, null, false)));

        assertThat(operations(policies, "named")).isEmpty();
    }

    @Test
    void errorsNameThePropertyAValueCameFrom() {
        MapPolicies policies = policies(Map.of("bulk", new PolicyValues(3L, null, null, null, true)));

        assertThatThrownBy(() -> operation(policies, "bulk"))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("Service.bulk()")
                .hasMessageContaining("permits (4) exceeds ratelimit.policies.bulk.rate (3)");
    }

    @Test
    void aMissingRateSaysWhereItCanBeSet() {
        assertThatThrownBy(() -> operation(policies(Map.of()), "onlyName"))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("rate is not set")
                .hasMessageContaining("ratelimit.policies.from-properties-only.rate");
    }

    @Test
    void requiredPoliciesMustExist() {
        MapPolicies required = new MapPolicies(Map.of("other", PolicyValues.NONE), PolicyValues.NONE, true);

        assertThatThrownBy(() -> operation(required, "named"))
                .isInstanceOfSatisfying(InvalidRateLimitException.class, ex -> {
                    assertThat(ex.getAttribute()).isEqualTo("name");
                    assertThat(ex.getMessage()).contains("\"order-submit\" has no policy configured")
                            .contains("ratelimit.policies.order-submit.rate").contains("[other]");
                });
        // methods without a name are not concerned
        assertThat(operation(required, "rateOnly").spec().rate()).isEqualTo(7);
    }

    @Test
    void keyVariablesMustBeParameters() {
        assertThat(operation(RateLimitPolicies.NONE, "indexes").key().unknownVariables()).isEmpty();
        assertThat(operation(RateLimitPolicies.NONE, "rootAndThis").key().unknownVariables()).isEmpty();
        assertThatThrownBy(() -> operation(RateLimitPolicies.NONE, "indexOutOfRange"))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("refers to #p2, which the method does not have")
                .hasMessageContaining("#first, #second, #p0..#p1");
        assertThatThrownBy(() -> operation(RateLimitPolicies.NONE, "indexOutOfRangeOfOne"))
                .isInstanceOfSatisfying(InvalidRateLimitException.class, ex -> {
                    assertThat(ex.getProblem()).contains("refers to #p1, which the method does not have");
                    assertThat(ex.getFix()).isEqualTo("use one of its parameters: #only, #p0");
                });
    }

    @Test
    void parametersWrittenWithoutHashFailNamingTheFix() {
        assertThat(operation(RateLimitPolicies.NONE, "rootProperties").key().source()).startsWith("methodName");
        assertThatThrownBy(() -> operation(RateLimitPolicies.NONE, "parametersWithoutHash"))
                .isInstanceOfSatisfying(InvalidRateLimitException.class, ex -> {
                    assertThat(ex.getMethod()).endsWith("Service.parametersWithoutHash(String, String)");
                    assertThat(ex.getAttribute()).isEqualTo("key");
                    assertThat(ex.getProblem()).contains("\"first + second\"").contains("first, second");
                    assertThat(ex.getFix()).isEqualTo("write #first, #second");
                });
        assertThatThrownBy(() -> operation(RateLimitPolicies.NONE, "misspeltWithoutHash"))
                .isInstanceOfSatisfying(InvalidRateLimitException.class, ex -> {
                    assertThat(ex.getAttribute()).isEqualTo("key");
                    assertThat(ex.getProblem()).contains("secnd");
                    assertThat(ex.getFix()).contains("#first, #second, #p0..#p1");
                });
        assertThatThrownBy(() -> operation(RateLimitPolicies.NONE, "conditionWithoutHash"))
                .isInstanceOfSatisfying(InvalidRateLimitException.class, ex -> {
                    assertThat(ex.getAttribute()).isEqualTo("skipIf");
                    assertThat(ex.getFix()).isEqualTo("write #amount");
                });
    }

    @Test
    void recordsDeclaredNames() {
        AnnotationRateLimitOperationSource source = new AnnotationRateLimitOperationSource(
                new io.github.redissonratelimit.key.KeyExpressionParser(), RateLimitPolicies.NONE);
        for (Method method : Service.class.getDeclaredMethods()) {
            try {
                source.getOperations(method, Service.class);
            }
            catch (InvalidRateLimitException expected) {
                // some methods are invalid on purpose
            }
        }
        assertThat(source.declaredLimits().names()).contains("order-submit", "bulk", "from-properties-only");
    }
}
