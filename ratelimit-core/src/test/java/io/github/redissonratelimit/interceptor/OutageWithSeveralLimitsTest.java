package io.github.redissonratelimit.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;

import io.github.redissonratelimit.local.DecisionStacks;
import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitBackendUnavailableException.Reason;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.operation.AnnotationRateLimitOperationSource;
import io.github.redissonratelimit.outcome.RateLimitOutcome;
import io.github.redissonratelimit.outcome.RateLimitOutcome.Result;

/**
 * The outage policy ({@code onBackendError}) with several limits, on a backend that has no decision for
 * limiters whose name contains "down" and allows everything else (pure logic: no Redis needed).
 */
class OutageWithSeveralLimitsTest {

    private final List<String> released = new CopyOnWriteArrayList<>();
    private final List<List<RateLimitOutcome>> outcomes = new CopyOnWriteArrayList<>();

    private final RateLimitBackend partlyDown = new RateLimitBackend() {
        @Override
        public CompletionStage<Decision> acquire(AcquireRequest request) {
            String limiterName = request.limiterName();
            LimitSpec spec = request.spec();
            long permits = request.permits();
            if (limiterName.contains("stuck")) {
                return new CompletableFuture<>();
            }
            if (limiterName.contains("down")) {
                return CompletableFuture.failedFuture(new RateLimitBackendUnavailableException(limiterName,
                        Reason.TIMEOUT, Duration.ofSeconds(1), "Redis did not answer within 100ms", null));
            }
            return CompletableFuture.completedFuture(Decision.allow());
        }

        @Override
        public CompletionStage<Void> release(AcquireRequest request, Decision granted) {
            String limiterName = request.limiterName();
            LimitSpec spec = request.spec();
            long permits = request.permits();
            released.add(limiterName);
            return CompletableFuture.completedFuture(null);
        }
    };

    private Accounts accounts() {
        RateLimitInterceptor interceptor = new RateLimitInterceptor(
                new AnnotationRateLimitOperationSource(new KeyExpressionParser()),
                DecisionStacks.around(partlyDown));
        interceptor.setListeners(List.of(outcomes::add));
        ProxyFactory factory = new ProxyFactory(new Accounts());
        factory.setProxyTargetClass(true);
        factory.addAdvice(interceptor);
        return (Accounts) factory.getProxy();
    }

    @Test
    void aLimitWithoutDecisionThatAllowsIsPassedAndReportedAsError() throws Exception {
        Accounts accounts = accounts();

        assertThat(accounts.lenient("ann")).isEqualTo("ok");
        assertThat(accounts.lenientAsync("ann").get(30, TimeUnit.SECONDS)).isEqualTo("ok");

        assertThat(outcomes).hasSize(2).allSatisfy(call -> assertThat(call)
                .extracting(RateLimitOutcome::limitName, RateLimitOutcome::result)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("up", Result.ALLOWED),
                        org.assertj.core.groups.Tuple.tuple("down", Result.ERROR)));
        assertThat(released).isEmpty();
    }

    @Test
    void aLimitWithoutDecisionThatDeniesRefusesTheCallAndGivesBackTheEarlierGrants() {
        Accounts accounts = accounts();

        assertThatThrownBy(() -> accounts.strict("bob")).isInstanceOf(RateLimitBackendUnavailableException.class);
        assertThatThrownBy(() -> accounts.strictAsync("bob").get(30, TimeUnit.SECONDS))
                .hasCauseInstanceOf(RateLimitBackendUnavailableException.class);

        assertThat(released).containsExactly("rate_limit:{up:bob}", "rate_limit:{up:bob}");
        assertThat(accounts.runs).isZero();
    }

    @Test
    void aShadowLimitWithoutDecisionNeverDeniesWhateverItsPolicy() throws Exception {
        Accounts accounts = accounts();

        assertThat(accounts.shadowStrict("dee")).isEqualTo("ok");
        assertThat(accounts.shadowStrictAsync("dee").get(30, TimeUnit.SECONDS)).isEqualTo("ok");

        assertThat(outcomes).hasSize(2).allSatisfy(call -> assertThat(call)
                .extracting(RateLimitOutcome::limitName, RateLimitOutcome::result, RateLimitOutcome::shadow)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("up", Result.ALLOWED, false),
                        org.assertj.core.groups.Tuple.tuple("down", Result.ERROR, true)));
        assertThat(released).isEmpty();
    }

    @Test
    void anInterruptedCallerStopsWaitingAndDoesNotRunTheMethodWhateverThePolicy() {
        Accounts accounts = accounts();

        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> accounts.stuck("cy")).isInstanceOfSatisfying(
                    RateLimitBackendUnavailableException.class,
                    ex -> assertThat(ex.getReason()).isEqualTo(Reason.INTERRUPTED));
            assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept for the caller").isTrue();
        }
        finally {
            Thread.interrupted();
        }
        assertThat(accounts.runs).isZero();
    }

    public static class Accounts {

        int runs;

        @RateLimit(name = "up", key = "'up:' + #user", rate = 5)
        @RateLimit(name = "down", key = "'down:' + #user", rate = 5, onBackendError = BackendErrorPolicy.ALLOW)
        public String lenient(String user) {
            return "ok";
        }

        @RateLimit(name = "up", key = "'up:' + #user", rate = 5)
        @RateLimit(name = "down", key = "'down:' + #user", rate = 5, onBackendError = BackendErrorPolicy.ALLOW)
        public CompletableFuture<String> lenientAsync(String user) {
            return CompletableFuture.completedFuture("ok");
        }

        @RateLimit(name = "up", key = "'up:' + #user", rate = 5)
        @RateLimit(name = "down", key = "'down:' + #user", rate = 5, onBackendError = BackendErrorPolicy.DENY)
        public String strict(String user) {
            runs++;
            return "ok";
        }

        @RateLimit(name = "up", key = "'up:' + #user", rate = 5)
        @RateLimit(name = "down", key = "'down:' + #user", rate = 5, onBackendError = BackendErrorPolicy.DENY)
        public CompletableFuture<String> strictAsync(String user) {
            runs++;
            return CompletableFuture.completedFuture("ok");
        }

        @RateLimit(name = "up", key = "'up:' + #user", rate = 5)
        @RateLimit(name = "down", key = "'down:' + #user", rate = 5, onBackendError = BackendErrorPolicy.DENY,
                shadow = true)
        public String shadowStrict(String user) {
            return "ok";
        }

        @RateLimit(name = "up", key = "'up:' + #user", rate = 5)
        @RateLimit(name = "down", key = "'down:' + #user", rate = 5, onBackendError = BackendErrorPolicy.DENY,
                shadow = true)
        public CompletableFuture<String> shadowStrictAsync(String user) {
            return CompletableFuture.completedFuture("ok");
        }

        @RateLimit(name = "stuck", key = "'stuck:' + #user", rate = 5, onBackendError = BackendErrorPolicy.ALLOW)
        public String stuck(String user) {
            runs++;
            return "ok";
        }
    }
}
