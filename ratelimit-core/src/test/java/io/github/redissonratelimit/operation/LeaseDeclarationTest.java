package io.github.redissonratelimit.operation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.InvalidRateLimitException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.key.KeyExpressionParser;

/** A limit's lease: off by default, from the annotation or its policy, refused at startup where it cannot work. */
class LeaseDeclarationTest {

    static class Service {

        @RateLimit(name = "plain", rate = 10)
        public void plain() {
        }

        @RateLimit(name = "leased", rate = 1000, lease = "100ms")
        public void leased() {
        }

        @RateLimit(name = "long", rate = 1000, lease = "200ms")
        public void tooLong() {
        }

        @RateLimit(name = "bucket", rate = 1000, algorithm = RateLimitAlgorithm.TOKEN_BUCKET, lease = "50ms")
        public void bucket() {
        }

        @RateLimit(name = "window", rate = 1000, algorithm = RateLimitAlgorithm.FIXED_WINDOW, lease = "50ms")
        public void window() {
        }

        @RateLimit(name = "flight", rate = 10, algorithm = RateLimitAlgorithm.IN_FLIGHT, lease = "50ms")
        public void inFlight() {
        }

        @RateLimit(name = "garbled", rate = 1000, lease = "soon")
        public void garbled() {
        }
    }

    private static RateLimitOperation operation(Map<String, PolicyValues> policies, String method) {
        java.lang.reflect.Method target = Arrays.stream(Service.class.getMethods())
                .filter(m -> m.getName().equals(method)).findFirst().orElseThrow();
        List<RateLimitOperation> operations = new AnnotationRateLimitOperationSource(new KeyExpressionParser(),
                new AnnotationRateLimitOperationSourceTest.MapPolicies(policies, PolicyValues.NONE, false)).getOperations(target, Service.class);
        return operations.get(0);
    }

    private static PolicyValues leasePolicy(Duration lease) {
        return new PolicyValues(null, null, null, null, true, null, null, Map.of(), AlgorithmValues.NONE, lease);
    }

    @Test
    void aLimitHasNoLeaseUnlessOneIsDeclared() {
        assertThat(operation(Map.of(), "plain").lease()).isZero();
        assertThat(operation(Map.of(), "leased").lease()).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void thePolicyOverridesTheAnnotation() {
        assertThat(operation(Map.of("plain", leasePolicy(Duration.ofMillis(50))), "plain").lease())
                .isEqualTo(Duration.ofMillis(50));
    }

    @Test
    void aLeaseLongerThanATenthOfTheIntervalIsRefusedNamingTheAttributeAndTheFix() {
        assertThatThrownBy(() -> operation(Map.of(), "tooLong")).isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("lease").hasMessageContaining("a tenth of the interval (PT0.1S)")
                .hasMessageContaining("PT0.2S");
        assertThatThrownBy(() -> operation(Map.of("plain", leasePolicy(Duration.ofSeconds(1))), "plain"))
                .isInstanceOf(InvalidRateLimitException.class).hasMessageContaining("policies")
                .hasMessageContaining("lease");
    }

    @Test
    void theTokenBucketAndTheFixedWindowLease() {
        assertThat(operation(Map.of(), "bucket").lease()).isEqualTo(Duration.ofMillis(50));
        assertThat(operation(Map.of(), "window").lease()).isEqualTo(Duration.ofMillis(50));
    }

    @Test
    void inFlightRefusesALeaseSayingWhy() {
        assertThatThrownBy(() -> operation(Map.of(), "inFlight")).isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("lease").hasMessageContaining("in-flight limit")
                .hasMessageContaining("held by its call until the call ends");
    }

    @Test
    void aLeaseThatIsNoDurationIsRefused() {
        assertThatThrownBy(() -> operation(Map.of(), "garbled")).isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("lease");
    }
}
